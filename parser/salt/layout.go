package salt

// Where comment and blank lines are more than layout in a template. Jinja
// renders before YAML is read, so a line that YAML would skip can still
// change what it reads: whitespace control (`{%-`, `-%}`, `{#- -#}`,
// `{{- -}}`) strips the blank lines next to a tag up to the first other
// text, so a comment typed there stops the stripping and is joined to what
// follows the tag; and the body of a block whose output is a value rather
// than text (`{% set x %}`, `macro`, `call`, `filter`, Salt's
// `load_yaml`/`load_json`/`load_text`) keeps its lines as that value.

// valueBlocks are the blocks whose body renders into a value.
var valueBlocks = map[string]bool{"set": true, "macro": true, "call": true, "filter": true,
	"load_yaml": true, "load_json": true, "load_text": true}

// TemplateGuards lists, in a template's source, the tags with whitespace
// control (strip), the statements (stmts) and the bodies of value blocks
// (values).
func TemplateGuards(src []byte) (strip, stmts, values []Span) {
	toks, _ := lexTemplate(src)
	type open struct {
		word string
		body int
	}
	var stack []open
	for _, t := range toks {
		if t.kind != 'e' && t.kind != 's' && t.kind != 'c' {
			continue
		}
		if t.lstrip || t.rstrip {
			strip = append(strip, Span{t.start, t.end})
		}
		if t.kind != 's' {
			continue
		}
		stmts = append(stmts, Span{t.start, t.end})
		word, rest := stmtWord(string(src[t.in:t.inEnd]))
		if _, ok := blockEnds[word]; ok && !(word == "set" && isSetAssign(rest)) {
			stack = append(stack, open{word, t.end})
			continue
		}
		if len(stack) == 0 {
			continue
		}
		top := stack[len(stack)-1]
		for _, e := range blockEnds[top.word] {
			if word == e {
				stack = stack[:len(stack)-1]
				if valueBlocks[top.word] {
					values = append(values, Span{top.body, t.start})
				}
				break
			}
		}
	}
	for _, o := range stack { // left open: to the end
		if valueBlocks[o.word] {
			values = append(values, Span{o.body, len(src)})
		}
	}
	return strip, stmts, values
}
