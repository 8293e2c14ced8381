package salt

import (
	"strings"

	sp "github.com/ordering-lsp/ordering-lsp/parser/salt"
)

// hasGlob reports whether s is an fnmatch pattern (Python's fnmatch:
// `*`, `?`, `[seq]`, `[!seq]`).
func hasGlob(s string) bool { return strings.ContainsAny(s, "*?[") }

// fnmatch is Python's fnmatch.fnmatchcase (Salt runs on POSIX, where
// fnmatch.fnmatch does not fold case). sp.Unknown in the pattern or the
// name stands for any text.
func fnmatch(name, pat string) bool {
	nameUnknown := strings.Contains(name, sp.Unknown)
	if !hasGlob(pat) && !strings.Contains(pat, sp.Unknown) && !nameUnknown {
		return name == pat
	}
	if !nameUnknown {
		// the literal prefix must match: most names fail here
		i := strings.IndexAny(pat, "*?["+sp.Unknown)
		if i > 0 && !strings.HasPrefix(name, pat[:i]) {
			return false
		}
	}
	return globMatch([]rune(name), []rune(pat), 0)
}

var unknownRune = []rune(sp.Unknown)[0]

func globMatch(name, pat []rune, depth int) bool {
	if depth > 50 {
		return false
	}
	for len(pat) > 0 {
		p := pat[0]
		switch {
		case p == '*' || p == unknownRune:
			for len(pat) > 0 && (pat[0] == '*' || pat[0] == unknownRune) {
				pat = pat[1:]
			}
			if len(pat) == 0 {
				return true
			}
			for i := 0; i <= len(name); i++ {
				if globMatch(name[i:], pat, depth+1) {
					return true
				}
			}
			return false
		case len(name) > 0 && name[0] == unknownRune:
			// an unknown part of the name may be anything, including the
			// rest of the pattern
			for i := 0; i <= len(pat); i++ {
				if globMatch(name[1:], pat[i:], depth+1) {
					return true
				}
			}
			return false
		case len(name) == 0:
			return false
		case p == '?':
			name, pat = name[1:], pat[1:]
		case p == '[':
			end := -1
			for j := 1; j < len(pat); j++ {
				if pat[j] == ']' && j > 1 || pat[j] == ']' && j == 1 && false {
					end = j
					break
				}
				if j == 1 && pat[j] == '!' {
					continue
				}
			}
			if end < 0 {
				if name[0] != '[' {
					return false
				}
				name, pat = name[1:], pat[1:]
				continue
			}
			set := pat[1:end]
			neg := false
			if len(set) > 0 && set[0] == '!' {
				neg = true
				set = set[1:]
			}
			ok := false
			c := name[0]
			for k := 0; k < len(set); k++ {
				if k+2 < len(set) && set[k+1] == '-' {
					if c >= set[k] && c <= set[k+2] {
						ok = true
					}
					k += 2
					continue
				}
				if c == set[k] {
					ok = true
				}
			}
			if ok == neg {
				return false
			}
			name, pat = name[1:], pat[end+1:]
		default:
			if name[0] != p {
				return false
			}
			name, pat = name[1:], pat[1:]
		}
	}
	for len(name) > 0 && name[0] == unknownRune {
		name = name[1:]
	}
	return len(name) == 0
}
