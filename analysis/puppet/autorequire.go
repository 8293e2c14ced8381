package puppet

import (
	"path"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/source"
)

// Autorequires: the edges Puppet types add by themselves (a file requires
// its parent directory, a service its package...), written as the types do.

type autoreq struct {
	t      *res
	reason string
	at     source.Span
}

// find is resolveExact without allocating.
func (r *run) find(typ, title string) *res {
	return r.lookup2(typ, title)
}

// autorequires appends to out what Puppet's types require by themselves.
func (r *run) autorequires(x *res, out []autoreq) []autoreq {
	add := func(typ, title, reason string, at source.Span) {
		if t := r.find(typ, title); t != nil {
			out = append(out, autoreq{t, reason, at})
		}
	}
	strs := func(a attr) []string {
		var ss []string
		var lbuf [1]val
		for _, v := range a.v.items(&lbuf) {
			if s, ok := v.text(); ok && s != "" {
				ss = append(ss, s)
			}
		}
		return ss
	}
	switch x.typ {
	case "File":
		p := x.title
		at := x.decl
		if a, ok := x.anyAttr("path"); ok {
			if s, k := a.v.text(); k {
				p, at = s, a.at.Span()
			}
		}
		if strings.HasPrefix(p, "/") {
			p = path.Clean(p)
			for d := path.Dir(p); ; d = path.Dir(d) {
				if t := r.find("File", d); t != nil && t != x {
					out = append(out, autoreq{t, "autorequire (parent directory)", at})
					break
				}
				if d == "/" || d == "." {
					break
				}
			}
		}
		// A link waits for its target when that is managed.
		if a, ok := x.anyAttr("target"); ok {
			for _, s := range strs(a) {
				add("File", s, "autorequire (link target)", a.at.Span())
			}
		}
		if a, ok := x.anyAttr("owner"); ok {
			for _, s := range strs(a) {
				add("User", s, "autorequire (owner)", a.at.Span())
			}
		}
		if a, ok := x.anyAttr("group"); ok {
			for _, s := range strs(a) {
				add("Group", s, "autorequire (group)", a.at.Span())
			}
		}
	case "User":
		if a, ok := x.anyAttr("gid"); ok {
			for _, s := range strs(a) {
				add("Group", s, "autorequire (gid)", a.at.Span())
			}
		}
		if a, ok := x.anyAttr("groups"); ok {
			for _, s := range strs(a) {
				for _, g := range strings.Split(s, ",") {
					add("Group", strings.TrimSpace(g), "autorequire (groups)", a.at.Span())
				}
			}
		}
	case "Exec":
		if a, ok := x.anyAttr("cwd"); ok {
			for _, s := range strs(a) {
				add("File", s, "autorequire (cwd)", a.at.Span())
			}
		}
		// Puppet 7: an array command contributes its first element only;
		// onlyif/unless each element (first of nested arrays); in each,
		// an absolute path at the start of any line (%r{^(/\S+)}), and
		// for command also a "quoted" path at a line start.
		for _, name := range []string{"command", "onlyif", "unless"} {
			a, ok := x.anyAttr(name)
			if !ok {
				continue
			}
			var lines []val
			switch {
			case a.v.k == vArr && name == "command":
				if len(a.v.arr) > 0 {
					lines = []val{a.v.arr[0]}
				}
			case a.v.k == vArr:
				for _, e := range a.v.arr {
					if e.k == vArr && len(e.arr) > 0 {
						e = e.arr[0]
					}
					lines = append(lines, e)
				}
			default:
				lines = []val{a.v}
			}
			for _, l := range lines {
				s, ok := l.text()
				if !ok || l.k != vStr {
					continue
				}
				for _, line := range strings.Split(s, "\n") {
					if strings.HasPrefix(line, "/") {
						add("File", strings.Fields(line)[0], "autorequire ("+name+")", a.at.Span())
					}
					if name == "command" && strings.HasPrefix(line, "\"") {
						if j := strings.IndexByte(line[1:], '"'); j > 0 {
							add("File", line[1:1+j], "autorequire ("+name+")", a.at.Span())
						}
					}
				}
			}
		}
		if a, ok := x.anyAttr("user"); ok {
			for _, s := range strs(a) {
				add("User", s, "autorequire (user)", a.at.Span())
			}
		}
	case "Cron", "Ssh_authorized_key":
		if a, ok := x.anyAttr("user"); ok {
			for _, s := range strs(a) {
				add("User", s, "autorequire (user)", a.at.Span())
			}
		}
	}
	return out
}
