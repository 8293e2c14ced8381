package cfengine

import (
	"fmt"
	"strings"
	"testing"
)

// A block with a syntax error keeps its header (kind, type, name, span,
// namespace) in File.Broken; a chunk whose first words are not a header
// gives nothing.
func TestBrokenHeaders(t *testing.T) {
	src := "body file control\n{\n  namespace => \"ns\";\n}\n" +
		"bundle agent args(a, b,, c)\n{\n}\n" +
		"bundle agent body_err\n{\n  vars:\n    \"x\" => \"y\";\n}\n" +
		"body perms p\n{\n  mode => \"644\"\n}\n" +
		"bundle { }\n" +
		"bundle agent fine { reports: \"ok\"; }\n" +
		"bundle agent runaway\n{\n  reports:\n    \"never closed;\n}\n"
	f := Parse([]byte(src))
	var got []string
	for _, b := range f.Broken {
		got = append(got, fmt.Sprintf("%s %s %s %s %q", b.Kind, b.Type.Text, b.Name.Text, b.Namespace, src[b.Name.Span.Start:b.Name.Span.End]))
		if !strings.HasPrefix(src[b.Span.Start:], b.Kind+" "+b.Type.Text+" "+b.Name.Text) {
			t.Errorf("span of %s starts at %q", b.Name.Text, src[b.Span.Start:min(b.Span.Start+30, len(src))])
		}
	}
	want := []string{
		`bundle agent args ns "args"`,
		`bundle agent body_err ns "body_err"`,
		`body perms p ns "p"`,
		`bundle agent runaway ns "runaway"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("broken headers:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(f.Blocks) != 2 || f.Blocks[1].Name.Text != "fine" {
		t.Errorf("parsed blocks: %d", len(f.Blocks))
	}
}
