package salt

import (
	"math"
	"strings"
)

// Python 2 dict methods. Salt 3000 and later run on Python 3, whose dicts
// have no iteritems, iterkeys, itervalues or has_key: Jinja looks the
// attribute up, StrictUndefined answers the call with the render's failure
// (Salt 3007, salt-order: `{% for k, v in d.iteritems() %}` → "Rendering
// SLS 'base:a' failed: Jinja variable 'dict object' has no attribute
// 'iteritems'; line 2"; the same for a set, a do, an if's condition, an
// output, even one in a YAML comment, and for a list, a string or none:
// 'list object', 'str object', 'None'). No value of an SLS's context has
// these methods, so the call fails whatever the value: judged wherever
// Jinja surely evaluates it (not the right of `and`/`or` after a left
// nobody knows, not a branch of `x if c else y` nobody can decide, not a
// macro's body), an error where every render does, a warning naming the
// branch where only some do.

// py2Methods are the methods of Python 2's dict that Python 3's lacks
// (Python 2.7's view methods included).
var py2Methods = map[string]bool{
	"iteritems": true, "iterkeys": true, "itervalues": true, "has_key": true,
	"viewitems": true, "viewkeys": true, "viewvalues": true,
}

// py2Call is a Python 2 method an evaluation called: its name and Jinja's
// words for the object it was looked up on.
type py2Call struct{ name, on string }

// typeRepr is how Jinja names a value's type in "... has no attribute"
// (jinja2.utils.object_type_repr). A value nobody knows is named a dict:
// these are dict methods, and no other value of a context has them
// either (where the value is missing altogether Salt names the missing
// key instead; the render fails all the same).
func typeRepr(v val) string {
	switch v.k {
	case kList:
		return "'list object'"
	case kStr:
		return "'str object'"
	case kBool:
		return "'bool object'"
	case kNone:
		return "'None'"
	case kNum:
		if v.n == math.Trunc(v.n) {
			return "'int object'"
		}
		return "'float object'"
	}
	return "'dict object'"
}

// notePy2Call records the call of method on recv (the receiver's
// expression x) when the evaluation judges calls. A receiver that is a
// name nothing binds fails first, as undefined (jinja_undefined.go).
func notePy2Call(sc *scope, x expr, recv val, method string) {
	c := sc.context()
	if c == nil || !c.judge {
		return
	}
	if n, ok := x.(eName); ok && !renderGlobals[n.name] {
		if _, bound := sc.lookup(n.name); !bound {
			return
		}
	}
	on := typeRepr(recv)
	if n, ok := x.(eName); ok && n.name == "salt" {
		if _, bound := sc.lookup(n.name); !bound {
			on = "'salt.utils.templates.AliasedLoader object'" // (salt-order: `salt.iterkeys()`)
		}
	}
	c.calls = append(c.calls, py2Call{method, on})
}

// evalCalls evaluates e, whose source is at, judging the Python 2 methods
// it calls. It reports whether the evaluation surely fails (a call every
// render of this place makes): what it guards never renders.
func (r *renderer) evalCalls(e expr, sc *scope, at Span) (val, bool) {
	c := r.ctx
	if at == (Span{}) || c.judge {
		return eval(e, sc, 0), false
	}
	c.judge, c.calls = true, c.calls[:0]
	v := eval(e, sc, 0)
	c.judge = false
	if len(c.calls) == 0 {
		return v, false
	}
	r.notePy2(at, c.calls)
	return v, true
}

// notePy2 turns the calls an expression at made into errors at the
// methods' names (warnings in a branch only some renders take), unless
// the place is one Salt never reaches: a body whose if or for fails.
func (r *renderer) notePy2(at Span, calls []py2Call) {
	if r.ctx.dead > 0 {
		return
	}
	nth := map[string]int{}
	for _, call := range calls {
		var span Span
		var ok bool
		msg := "Jinja variable " + call.on + " has no attribute '" + call.name + "'"
		if kw, removed := strings.CutPrefix(call.name, removedKwarg); removed {
			// (salt-order: "Rendering SLS 'base:m' failed: Jinja error:
			// get() got an unexpected keyword argument 'expr_form'")
			span, ok = kwargIn(r.src, at.Start, at.End, kw, nth[call.name])
			msg = "Jinja error: get() got an unexpected keyword argument '" + kw + "'"
		} else {
			span, ok = methodIn(r.src, at.Start, at.End, call.name, nth[call.name])
		}
		nth[call.name]++
		if !ok {
			continue
		}
		e := Error{Span: span, Severity: 1, Msg: msg}
		r.inBranch(&e)
		if i, seen := r.ctx.py2At[span]; seen {
			if e.Severity < r.ctx.py2Errs[i].Severity {
				r.ctx.py2Errs[i] = e // every render reaches it after all
			}
			continue
		}
		if r.ctx.py2At == nil {
			r.ctx.py2At = map[Span]int{}
		}
		r.ctx.py2At[span] = len(r.ctx.py2Errs)
		r.ctx.py2Errs = append(r.ctx.py2Errs, e)
	}
}

// methodIn finds the nth (from 0) `.name` followed by a call's
// parenthesis in src[a:b], outside quotes.
func methodIn(src []byte, a, b int, name string, nth int) (sp Span, ok bool) {
	unquoted(src, a, b, func(i int) bool {
		if src[i] != '.' {
			return false
		}
		j := i + 1
		for j < b && (src[j] == ' ' || src[j] == '\t') {
			j++
		}
		if j+len(name) > b || string(src[j:j+len(name)]) != name {
			return false
		}
		k := j + len(name)
		if k < b && identByte(src[k]) {
			return false
		}
		for k < b && (src[k] == ' ' || src[k] == '\t') {
			k++
		}
		if k >= b || src[k] != '(' {
			return false
		}
		if nth > 0 {
			nth--
			return false
		}
		sp, ok = Span{j, j + len(name)}, true
		return true
	})
	return sp, ok
}

// removedKwarg marks, in a py2Call's name, a keyword argument the called
// Salt function no longer takes (mine.get's expr_form, removed in Salt
// 3001 for tgt_type: Marmelatze/saltstack-mesos-test's map.jinja).
const removedKwarg = "\x00kw:"

// kwargIn finds the nth (from 0) keyword argument `name=` in src[a:b],
// outside quotes.
func kwargIn(src []byte, a, b int, name string, nth int) (sp Span, ok bool) {
	unquoted(src, a, b, func(i int) bool {
		if i+len(name) > b || string(src[i:i+len(name)]) != name || i > a && identByte(src[i-1]) {
			return false
		}
		k := i + len(name)
		for k < b && (src[k] == ' ' || src[k] == '\t') {
			k++
		}
		if k >= b || src[k] != '=' || k+1 < b && src[k+1] == '=' {
			return false
		}
		if nth > 0 {
			nth--
			return false
		}
		sp, ok = Span{i, i + len(name)}, true
		return true
	})
	return sp, ok
}
