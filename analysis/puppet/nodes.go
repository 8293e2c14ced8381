package puppet

import (
	"bytes"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	pp "github.com/ordering-lsp/ordering-lsp/parser/puppet"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// Nodes implements analysis.NodeLister: the fact sets `puppet.facts`
// names (a node with data: check analyses the workspace under each), and
// the names node blocks spell out (classification without facts). Regex
// and default blocks name no node.
func (s *System) Nodes(req *analysis.Request) []analysis.NodeInfo {
	ws := req.Workspace
	if ws == nil {
		ws = source.NewWorkspace()
	}
	var out []analysis.NodeInfo
	if p := req.Settings.Get("puppet.facts", ""); p != "" {
		root := ""
		if rs := ws.Roots(); len(rs) > 0 {
			root = rs[0]
		}
		p = absFacts(root, p)
		read := func(fp string) ([]byte, error) {
			if f := ws.Lookup(fp); f != nil {
				return f.Text, nil
			}
			return nil, errNoFile
		}
		sets, _, dir := readFactSets(p, read)
		// One file of one node is that node's facts in every analysis
		// already (loadFacts): no matrix of one.
		matrix := dir || len(sets) > 1
		for _, fs := range sets {
			out = append(out, analysis.NodeInfo{Name: fs.name, Detail: fs.platform, At: source.Span{URI: source.PathToURI(fs.path)}, Data: matrix})
		}
	}
	for _, f := range req.Files {
		if !bytes.Contains(f.Text, []byte("node")) {
			continue
		}
		ast := s.parse(f)
		for _, st := range ast.Stmts {
			nd, ok := st.(*pp.NodeDef)
			if !ok {
				continue
			}
			for _, m := range nd.Matches {
				if str, ok := m.(*pp.Str); ok {
					out = append(out, analysis.NodeInfo{Name: strings.ToLower(str.Value), Detail: "node block",
						At: source.Span{URI: f.URI, Start: str.Pos, End: str.End}})
				}
			}
		}
	}
	return out
}
