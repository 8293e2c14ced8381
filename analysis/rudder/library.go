package rudder

import (
	"bytes"
	"path/filepath"

	prs "github.com/ordering-lsp/ordering-lsp/parser/rudder"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// library names the technique library a technique belongs to. Rudder
// refuses a second technique with one id and version only inside one
// library: GitTechniqueReader walks one techniques/ tree and logs
// "Ignoring package for policy with ID ... because an other policy is
// already defined with that id"; two libraries (two configuration
// repositories, a test tree beside the real one) never meet, and rudderc
// compiles each technique.yml project on its own.
//
// A library is a tree of category folders, each holding category.xml, the
// root one included (Rudder drops a category whose parent is not one, and
// the techniques in it). So the library of a metadata.xml is the topmost
// folder of the unbroken chain of category folders above it; when its
// category folder has no category.xml, the nearest folder named
// `techniques` above it, else that category folder. A technique.yml inside
// a library belongs to it; anywhere else its folder is a project of its
// own. Techniques of API exports share one library: the workspace.
//
// real is true for a library of category folders, where Rudder refuses
// the second definition whatever its text; elsewhere the library is our
// guess and an identical copy is no duplicate.
func (a *analyzer) library(t *technique) (key string, real bool) {
	if t.Source != "metadata.xml" && t.Source != "technique.yml" {
		return "", false
	}
	p := source.URIToPath(t.uri)
	if p == "" {
		return t.uri, false // an unsaved document stands alone
	}
	dir := filepath.Dir(p) // the version folder, or the technique's own
	if _, v := prs.TechniqueIDFromPath(filepath.ToSlash(p)); v != "" {
		dir = filepath.Dir(dir)
	}
	cat := filepath.Dir(dir)
	if root := a.categoryRoot(cat); root != "" {
		return root, true
	}
	if t.Source == "technique.yml" {
		return filepath.Dir(p), false
	}
	for d := cat; ; d = filepath.Dir(d) {
		if filepath.Base(d) == "techniques" {
			return d, false
		}
		if filepath.Dir(d) == d {
			return cat, false
		}
	}
}

// categoryRoot is the topmost folder of the unbroken chain of folders
// holding category.xml that starts at dir, or "" when dir holds none.
func (a *analyzer) categoryRoot(dir string) string {
	if a.req.Workspace == nil {
		return ""
	}
	if a.libCache == nil {
		a.libCache = map[string]string{}
	}
	if r, ok := a.libCache[dir]; ok {
		return r
	}
	root := ""
	if a.req.Workspace.Exists(filepath.Join(dir, "category.xml")) {
		root = dir
		if up := filepath.Dir(dir); up != dir {
			if r := a.categoryRoot(up); r != "" {
				root = r
			}
		}
	}
	a.libCache[dir] = root
	return root
}

// sameTechniqueText says whether two definitions are the same bytes: a
// technique file copied unchanged (a backup, a test's expected output) or
// an API object exported twice is no duplicate.
func (a *analyzer) sameTechniqueText(x, y *technique) bool {
	tx, ty := a.texts[x.uri], a.texts[y.uri]
	if tx == nil || ty == nil {
		return false
	}
	if x.Source == "metadata.xml" || x.Source == "technique.yml" {
		return bytes.Equal(tx, ty)
	}
	if !inside(tx, x.Full) || !inside(ty, y.Full) {
		return false
	}
	return bytes.Equal(tx[x.Full.Start:x.Full.End], ty[y.Full.Start:y.Full.End])
}

func inside(b []byte, s prs.Span) bool {
	return s.Start >= 0 && s.Start <= s.End && s.End <= len(b)
}
