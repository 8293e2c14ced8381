package puppet

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestCorpusParse parses every .pp under $ORDERING_CORPUS and lists the
// syntax errors (ORDERING_CORPUS_SHOW=1 prints each with its line).
func TestCorpusParse(t *testing.T) {
	root := os.Getenv("ORDERING_CORPUS")
	if root == "" {
		t.Skip("set ORDERING_CORPUS")
	}
	show := os.Getenv("ORDERING_CORPUS_SHOW") != ""
	files, clean := 0, 0
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".pp" {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		files++
		f := Parse(src)
		if len(f.Errors) == 0 {
			clean++
			return nil
		}
		if show {
			for _, e := range f.Errors {
				line := bytes.Count(src[:e.Pos], []byte("\n")) + 1
				ls := bytes.LastIndexByte(src[:e.Pos], '\n') + 1
				le := bytes.IndexByte(src[e.Pos:], '\n')
				if le < 0 {
					le = len(src) - e.Pos
				}
				t.Logf("%s:%d: %s\n\t%s", p, line, e.Msg, src[ls:e.Pos+le])
			}
		}
		return nil
	})
	t.Logf("%d files, %d parse cleanly", files, clean)
}
