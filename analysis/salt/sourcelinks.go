package salt

import (
	"bytes"
	"os"
	"path/filepath"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// saltURLs calls f with each salt://path written in text: the offsets of
// `salt://` and of the path's end, and the path (without a query,
// `?saltenv=`). A path a template writes (`salt://{{ x }}/y`) is left out:
// what it names is known only once rendered.
func saltURLs(text []byte, f func(start, end int, path string)) {
	for at := 0; ; {
		i := bytes.Index(text[at:], []byte("salt://"))
		if i < 0 {
			return
		}
		start := at + i
		p := start + len("salt://")
		n := bytes.IndexAny(text[p:], "'\"?# \t\r\n{")
		if n < 0 {
			n = len(text) - p
		}
		at = p + n
		if at < len(text) && text[at] == '{' {
			continue // templated path
		}
		f(start, at, string(text[p:at]))
	}
}

// sourceLinks makes each salt://path that names a file of its root (a
// state's `source:`, `template:` sources, a pillar's file) a link to that
// file: the editor opens it on Ctrl+click (textDocument/documentLink) and
// go-to-definition lands there. A folder (file.recurse) or a file the
// workspace lacks (another root, gitfs) is no link.
func sourceLinks(files []treeFile) []analysis.Link {
	var out []analysis.Link
	for _, tf := range files {
		uri := tf.f.file.URI
		saltURLs(tf.f.file.Text, func(start, end int, p string) {
			rel, ok := unmount(tf.f.mount, p)
			if !ok || rel == "" {
				return
			}
			path := filepath.Join(tf.f.root, filepath.FromSlash(rel))
			if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
				return
			}
			out = append(out, analysis.Link{At: source.Span{URI: uri, Start: start, End: end}, Files: []source.Span{{URI: source.PathToURI(path)}}})
		})
	}
	return out
}
