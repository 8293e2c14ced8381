package salt

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// dump renders a tree for comparison: shape, tags, values, start offsets
// (and end offsets of scalars).
func dump(n *Node, sb *strings.Builder, depth int) {
	ind := strings.Repeat(" ", depth)
	switch n.Kind {
	case Map:
		fmt.Fprintf(sb, "%smap@%d\n", ind, n.RStart)
		for i := range n.Keys {
			dump(n.Keys[i], sb, depth+1)
			dump(n.Vals[i], sb, depth+2)
		}
	case Seq:
		fmt.Fprintf(sb, "%sseq@%d\n", ind, n.RStart)
		for _, it := range n.Items {
			dump(it, sb, depth+1)
		}
	default:
		if n.Tag == "!!null" {
			fmt.Fprintf(sb, "%snull\n", ind)
			return
		}
		fmt.Fprintf(sb, "%s%s %q@%d-%d\n", ind, n.Tag, n.Value, n.RStart, n.REnd)
	}
}

// both parses a chunk with the fast reader and with yaml.v3; ok is false
// when the fast reader declined.
func both(t *testing.T, chunk string) (fast, full string, ok bool) {
	t.Helper()
	r := fastParse(chunk)
	if r == nil {
		return "", "", false
	}
	f := &File{R: Identity([]byte(chunk)), src: []byte(chunk)}
	var a strings.Builder
	dump(f.fromRaw(r, 0, 0), &a, 0)
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(chunk), &doc); err != nil {
		return a.String(), "error: " + err.Error(), true
	}
	c := &converter{f: f, text: []byte(chunk), base: 0, end: len(chunk)}
	c.lines = lineStarts([]byte(chunk), 0, len(chunk))
	var b strings.Builder
	dump(c.node(&doc, 0), &b, 0)
	return a.String(), b.String(), true
}

var fastCases = []string{
	"a:\n  test.nop\n",
	"a:\n  pkg.installed:\n    - name: x\n    - require:\n      - pkg: y\n      - z\n",
	"a: {b: [1, 2, 'x'], c: \"d\"}\n",
	"include:\n- a\n- b.c\n",
	"a:\n  file.managed:\n    - mode: 0644\n    - user: 'root'\n    - makedirs: True\n    - order: -1\n    - x: 1.5\n    - y: ~\n    - z:\n",
	"a:\n  cmd.run:\n    - name: echo # comment\n    # full comment\n    - names:\n      - one\n      - two:\n        - order: 3\n",
	"- a\n- b: c\n  d: e\n",
	"a:\n  - b:\n    - c\n  - d\n",
	"key with spaces: value with spaces\n",
	"a:\n  b: 'it''s'\n",
	"a: [ ]\nb: { }\n",
	"a:\n  - - nested\n",
	"a: |\n  block\n",
	"a: &x 1\nb: *x\n",
	"a: b\n  c\n",
	"a:\n  b: \"esc\\n\"\n",
	"a:\n\tb: c\n",
	"a: b: c\n",
	"a:\n  - name: x\n    user: root\n  - other\n",
	"a:\n  service.running:\n  - watch:\n    - file: x\n",
}

// TestFastYAML: whenever the fast reader accepts a chunk, it must read it
// exactly as yaml.v3 does.
func TestFastYAML(t *testing.T) {
	accepted := 0
	for _, c := range fastCases {
		fast, full, ok := both(t, c)
		if !ok {
			continue
		}
		accepted++
		if fast != full {
			t.Errorf("chunk %q\n--- fast\n%s--- yaml.v3\n%s", c, fast, full)
		}
	}
	if accepted < 12 {
		t.Errorf("fast reader accepted only %d of %d cases", accepted, len(fastCases))
	}
}

// TestFastYAMLCorpus runs the same comparison over every chunk of the SLS
// files under SALT_CORPUS (skipped when unset).
func TestFastYAMLCorpus(t *testing.T) {
	dir := os.Getenv("SALT_CORPUS")
	if dir == "" {
		t.Skip("set SALT_CORPUS")
	}
	total, accepted, mismatched := 0, 0, 0
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".sls") {
			return nil
		}
		src, _ := os.ReadFile(p)
		r := RenderJinja(src, map[string]string{"tpldir": "x", "sls": "x"})
		for _, ch := range splitChunks(r.Text) {
			total++
			fast, full, ok := both(t, string(r.Text[ch[0]:ch[1]]))
			if !ok {
				continue
			}
			accepted++
			if fast != full && !strings.HasPrefix(full, "error") {
				mismatched++
				if mismatched < 5 {
					t.Errorf("%s: chunk %q\n--- fast\n%s--- yaml.v3\n%s", p, r.Text[ch[0]:ch[1]], fast, full)
				}
			}
		}
		return nil
	})
	t.Logf("%d chunks, fast reader took %d, %d differ", total, accepted, mismatched)
}

// FuzzFastYAML: whenever the fast reader accepts a chunk, yaml.v3 must
// read the same tree from it.
func FuzzFastYAML(f *testing.F) {
	for _, c := range fastCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, chunk string) {
		if strings.ContainsRune(chunk, '\r') || !utf8.ValidString(chunk) {
			return
		}
		fast, full, ok := both(t, chunk)
		if ok && fast != full {
			t.Fatalf("chunk %q\n--- fast\n%s--- yaml.v3\n%s", chunk, fast, full)
		}
	})
}
