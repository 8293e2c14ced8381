package salt

import (
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Where a YAML error is. Salt's loader is PyYAML, and for an error of its
// parser (not its scanner) Salt prints PyYAML's whole message: "while
// parsing a block mapping / in <unicode string>, line 4, column 3 /
// expected <block end>, but found '-' / in <unicode string>, line 9,
// column 3" (salt/renderers/yaml.py re-raises ParserError as is). The
// second mark, the problem, is the token that breaks the document.
// yaml.v3 reports one line number only: the first mark's line counted
// from 0 when the first mark is not on the first line, else the
// problem's line counted from 0 (gopkg.in/yaml.v3 decode.go, fail()):
// one line above where Salt's context is, or one above the problem, so
// that "did not find expected key" pointed at the line before the
// mapping that holds the bad line (buengese/salt-config
// blacklist/init.sls: ours 3:1, PyYAML 4:3 and 9:3), or at a blank line
// (Vlot-Ltd/homelab-saltstack netbox/config.sls). yaml.v3's scanner
// errors count from 1 and name the problem's line in most cases, the
// context's (a key without its colon) in others; Salt prints no position
// for them ("could not find expected ':'" alone): they are left as they
// are.

// parserErrors are the messages of yaml.v3's parser (parserc.go) whose
// problem is a token after the context.
var parserErrors = map[string]bool{
	"did not find expected key":           true,
	"did not find expected '-' indicator": true,
	"did not find expected node content":  true,
	"did not find expected ',' or ']'":    true,
	"did not find expected ',' or '}'":    true,
}

// yamlProblem finds the offset in doc of the token PyYAML names as the
// problem of the parser error msg that yaml.v3 reported at line (its
// number: from 0, see above) while reading doc. The token is the first
// whose end makes a prefix of doc fail the same way: the prefixes before
// it parse (a block ends at the end of the text), the ones that hold it
// make the parser stop at it, with the same context.
func yamlProblem(doc []byte, msg string, line int) (int, bool) {
	if !parserErrors[msg] {
		return 0, false
	}
	starts := lineStarts(doc, 0, len(doc))
	lineEnd := func(i int) int {
		if i+1 < len(starts) {
			return starts[i+1]
		}
		return len(doc)
	}
	flow := strings.HasSuffix(msg, "']'") || strings.HasSuffix(msg, "'}'") || msg == "did not find expected node content"
	fails := func(end int) bool {
		if !failsAs(doc[:end], msg, line) {
			return false
		}
		// A flow collection the prefix leaves open fails at the end of
		// the text the same way: closed there, a prefix that does not
		// hold the problem parses (or fails otherwise).
		if c := flowClosers(doc[:end]); flow && c != "" {
			return failsAs(append(append([]byte(nil), doc[:end]...), " "+c...), msg, line)
		}
		return true
	}
	// The problem's line (from 0) is the reported one or after it.
	lo, hi := line, len(starts)-1
	if lo > hi || !fails(lineEnd(hi)) {
		return 0, false
	}
	for lo < hi {
		mid := (lo + hi) / 2
		if fails(lineEnd(mid)) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	a, b := starts[lo], lineEnd(lo)
	first := -1
	for i := a; i < b; {
		for i < b && (doc[i] == ' ' || doc[i] == '\t') {
			i++
		}
		if i >= b || doc[i] == '\n' || doc[i] == '\r' || doc[i] == '#' {
			break
		}
		start := i
		if first < 0 {
			first = start
		}
		i = tokenRunEnd(doc, i, b)
		if !fails(i) {
			continue
		}
		if q := doc[start]; q == '"' || q == '\'' {
			// a quoted scalar is a token of its own: what is glued to
			// it may be the problem (`- exclude_pat: 'test', 'test2'`:
			// PyYAML's scanner reads the ',' as a flow entry in a block
			// too, giangkoi65/saltstack nginx/init.sls, salt-order
			// "line 76, column 26")
			if e := quotedEnd(doc, start, i); e < i && !fails(e) {
				return e, true
			}
			return start, true
		}
		if !flow {
			return start, true // a block's problem starts its run (a key, a '-', a scalar)
		}
		// In a flow, the problem is often a one-character token inside
		// the run (`y}`, `y:`): the shortest failing prefix ends there;
		// else it ends in the plain scalar that is the problem.
		k := start + 1
		for k < i && !fails(k) {
			k++
		}
		at := k - 1
		if strings.IndexByte(",[]{}:?", doc[at]) < 0 {
			for at > start && strings.IndexByte(",[]{}", doc[at-1]) < 0 {
				at--
			}
		}
		return at, true
	}
	if first < 0 {
		return 0, false
	}
	return first, true
}

// quotedEnd is the end of the quoted scalar that starts at doc[i] (its
// line's end at most).
func quotedEnd(doc []byte, i, b int) int {
	q := doc[i]
	i++
	for i < b && doc[i] != '\n' {
		if q == '"' && doc[i] == '\\' {
			i += 2
			continue
		}
		if doc[i] == q {
			if q == '\'' && i+1 < b && doc[i+1] == '\'' {
				i += 2
				continue
			}
			break
		}
		i++
	}
	return min(i+1, b)
}

// failsAs: yaml.v3 fails to read doc with msg at line.
func failsAs(doc []byte, msg string, line int) bool {
	var n yaml.Node
	err := safeUnmarshal(doc, &n)
	if err == nil {
		return false
	}
	m := strings.TrimPrefix(err.Error(), "yaml: ")
	l := 0
	if sub := lineRe.FindStringSubmatch(m); sub != nil {
		l, _ = strconv.Atoi(sub[1])
		m = strings.TrimSpace(strings.Replace(m, sub[0]+":", "", 1))
	}
	return l == line && m == msg
}

// flowClosers closes the flow collections doc leaves open ("]}" for
// `{a: [b`), counting brackets outside quotes and comments.
func flowClosers(doc []byte) string {
	var open []byte
	for i := 0; i < len(doc); i++ {
		c := doc[i]
		atStart := i == 0 || strings.IndexByte(" \t\n[{,:", doc[i-1]) >= 0
		switch {
		case c == '#' && (i == 0 || doc[i-1] == ' ' || doc[i-1] == '\t' || doc[i-1] == '\n'):
			for i < len(doc) && doc[i] != '\n' {
				i++
			}
		case (c == '"' || c == '\'') && atStart:
			i = tokenRunEnd(doc, i, len(doc)) - 1
		case c == '[' || c == '{':
			open = append(open, c)
		case (c == ']' || c == '}') && len(open) > 0:
			open = open[:len(open)-1]
		}
	}
	out := make([]byte, 0, len(open))
	for i := len(open) - 1; i >= 0; i-- {
		out = append(out, open[i]+2) // '[' + 2 == ']', '{' + 2 == '}'
	}
	return string(out)
}

// tokenRunEnd is the end of the run of non-blank text from i (a quoted
// scalar that starts it whole, blanks and all) on the line that ends at b.
func tokenRunEnd(doc []byte, i, b int) int {
	if q := doc[i]; q == '"' || q == '\'' {
		i = quotedEnd(doc, i, b)
	}
	for i < b && doc[i] != ' ' && doc[i] != '\t' && doc[i] != '\n' && doc[i] != '\r' {
		i++
	}
	return i
}
