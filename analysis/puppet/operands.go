package puppet

import "fmt"

// A chaining arrow's operands, as buildRun relates them: each side's
// catalog resources, pair by pair, and Puppet's errors for a side's
// reference that names nothing (graph.go draws the edges).

// operands turns a chain operand into catalog resources; missing
// references are Puppet's "Could not find resource ... for relationship",
// unless quiet (the other side is a collector that collects nothing):
// then silenced says one was not reported.
func (r *run) operands(g *runGraph, v val, rel *relation, left, quiet bool) (out []*res, silenced bool) {
	var lbuf [1]val
	for _, x := range v.items(&lbuf) {
		switch x.k {
		case vRef:
			if x.ref.pat {
				continue
			}
			t, exact := r.resolveBoth(x.ref)
			if t != nil && !exact {
				continue
			}
			if t != nil && !t.inCatalog() {
				continue // a virtual resource: the reference does not realize it, no edge
			}
			var when []*branch
			absent := t == nil
			if absent {
				when = g.conds.of(rel.cond)
			} else {
				when, absent = g.absentWhen(nil, t, rel.cond)
			}
			if absent && quiet {
				silenced = true
				continue
			}
			if absent {
				other := rel.right
				if !left {
					other = rel.left
				}
				od := operandName(other)
				if od == "" {
					od = rel.rightTxt
					if !left {
						od = rel.leftTxt
					}
				}
				name := refString(x.ref.typ, displayTitle(x.ref))
				srcSide := left != (rel.op == "<-" || rel.op == "<~")
				if srcSide {
					r.missingWhen(x.at, x.ref, fmt.Sprintf("Could not find resource '%s' for relationship on '%s'", name, od), when)
				} else {
					r.missingWhen(x.at, x.ref, fmt.Sprintf("Could not find resource '%s' for relationship from '%s'", name, od), when)
				}
				continue
			}
			out = append(out, t)
		case vRes:
			for _, t := range x.resList() {
				if t.inCatalog() {
					out = append(out, t)
				}
			}
		case vCollect:
			for _, t := range x.x.col.matched {
				if t.inCatalog() {
					out = append(out, t)
				}
			}
		}
	}
	return out, silenced
}

// collectsNothing says whether an operand is collectors alone, and they
// collected nothing that is in the catalog (mysql's `Class['mysql::config']
// -> Mysql::Db <| |>` where no database is declared: Puppet 7.23 applies
// it; with one, "Could not find resource 'Class[Mysql::Config]' for
// relationship on 'Mysql::Db[x]'").
func collectsNothing(v val) bool {
	var lbuf [1]val
	items := v.items(&lbuf)
	if len(items) == 0 {
		return false
	}
	for _, x := range items {
		if x.k != vCollect {
			return false
		}
		for _, t := range x.x.col.matched {
			if t.inCatalog() {
				return false
			}
		}
	}
	return true
}

func operandName(v val) string {
	var lbuf [1]val
	for _, x := range v.items(&lbuf) {
		switch x.k {
		case vRef:
			return refString(x.ref.typ, displayTitle(x.ref))
		case vRes:
			if rs := x.resList(); len(rs) > 0 {
				return rs[0].display
			}
		case vCollect: // (Puppet names the first pair's resource: 'Mysql::Db[x]')
			for _, t := range x.x.col.matched {
				if t.inCatalog() {
					return t.display
				}
			}
		}
	}
	return ""
}
