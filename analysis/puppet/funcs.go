package puppet

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/source"
)

// pureFunc evaluates the side-effect-free functions that commonly build
// titles and parameters (core Puppet and stdlib), when their arguments
// are known. Method calls pass the receiver as the first argument.
func pureFunc(name string, args []val, at source.Span) (val, bool) {
	name = strings.TrimPrefix(name, "stdlib::")
	strArg := func(i int) (string, bool) {
		if i >= len(args) {
			return "", false
		}
		s, ok := args[i].text()
		return s, ok && (args[i].k == vStr || args[i].k == vNum || args[i].k == vBool)
	}
	mapStr := func(f func(string) string) (val, bool) {
		if len(args) == 0 {
			return val{}, false
		}
		if args[0].k == vArr {
			out := val{k: vArr, at: at}
			for _, x := range args[0].arr {
				s, ok := x.text()
				if !ok || x.k != vStr {
					return val{}, false
				}
				out.arr = append(out.arr, str(f(s), at))
			}
			return out, true
		}
		s, ok := strArg(0)
		if !ok {
			return val{}, false
		}
		return str(f(s), at), true
	}
	switch name {
	case "downcase":
		return mapStr(strings.ToLower)
	case "upcase":
		return mapStr(strings.ToUpper)
	case "capitalize":
		return mapStr(func(s string) string {
			if s == "" {
				return s
			}
			return strings.ToUpper(s[:1]) + strings.ToLower(s[1:])
		})
	case "strip":
		return mapStr(strings.TrimSpace)
	case "basename":
		return mapStr(path.Base)
	case "dirname":
		return mapStr(path.Dir)
	case "md5", "sha1", "sha256":
		s, ok := strArg(0)
		if !ok {
			return val{}, false
		}
		var sum []byte
		switch name {
		case "md5":
			h := md5.Sum([]byte(s))
			sum = h[:]
		case "sha1":
			h := sha1.Sum([]byte(s))
			sum = h[:]
		default:
			h := sha256.Sum256([]byte(s))
			sum = h[:]
		}
		return str(hex.EncodeToString(sum), at), true
	case "regsubst":
		if len(args) < 3 {
			return val{}, false
		}
		pat, ok1 := args[1].text()
		if args[1].k == vRegex {
			pat, ok1 = args[1].s, true
		}
		repl, ok2 := strArg(2)
		if !ok1 || !ok2 {
			return val{}, false
		}
		flags := ""
		if len(args) > 3 {
			flags, _ = args[3].text()
		}
		expr := pat
		if strings.Contains(flags, "I") {
			expr = "(?i)" + expr
		}
		re, err := compileRegex(expr)
		if err != nil {
			return val{}, false
		}
		// Ruby's \1 and \0 become Go's ${1} and ${0}.
		goRepl := repl
		for i := 9; i >= 0; i-- {
			goRepl = strings.ReplaceAll(goRepl, fmt.Sprintf("\\%d", i), fmt.Sprintf("${%d}", i))
		}
		global := strings.Contains(flags, "G")
		return mapStr(func(s string) string {
			if global {
				return re.ReplaceAllString(s, goRepl)
			}
			loc := re.FindStringSubmatchIndex(s)
			if loc == nil {
				return s
			}
			var dst []byte
			dst = re.ExpandString(dst, goRepl, s, loc)
			return s[:loc[0]] + string(dst) + s[loc[1]:]
		})
	case "join":
		if len(args) == 0 || args[0].k != vArr {
			return val{}, false
		}
		sep := ""
		if len(args) > 1 {
			sep, _ = args[1].text()
		}
		parts := make([]string, 0, len(args[0].arr))
		for _, x := range args[0].arr {
			s, ok := x.text()
			if !ok {
				return val{}, false
			}
			parts = append(parts, s)
		}
		return str(strings.Join(parts, sep), at), true
	case "split":
		s, ok := strArg(0)
		sep, ok2 := strArg(1)
		if len(args) > 1 && args[1].k == vRegex {
			re, err := compileRegex(args[1].s)
			if err != nil || !ok {
				return val{}, false
			}
			out := val{k: vArr, at: at}
			for _, p := range re.Split(s, -1) {
				out.arr = append(out.arr, str(p, at))
			}
			return out, true
		}
		if !ok || !ok2 {
			return val{}, false
		}
		out := val{k: vArr, at: at}
		for _, p := range strings.Split(s, sep) {
			out.arr = append(out.arr, str(p, at))
		}
		return out, true
	case "pick", "pick_default":
		for _, a := range args {
			if a.k == vUnknown {
				return val{}, false
			}
			if a.k != vUndef && !(a.k == vStr && a.s == "" && !a.pat) {
				return a, true
			}
		}
		if name == "pick_default" && len(args) > 0 {
			return args[len(args)-1], true
		}
		return val{}, false
	case "concat":
		out := val{k: vArr, at: at}
		for _, a := range args {
			out.arr = append(out.arr, a.list()...)
		}
		return out, true
	case "flatten":
		if len(args) == 1 {
			return val{k: vArr, arr: args[0].list(), at: at}, true
		}
	case "sprintf":
		f, ok := strArg(0)
		if !ok {
			return val{}, false
		}
		var vs []any
		for _, a := range args[1:] {
			s, ok := a.text()
			if !ok {
				return val{}, false
			}
			if a.k == vNum {
				if n, ok := numVal(a.s); ok {
					vs = append(vs, int64(n))
					continue
				}
			}
			vs = append(vs, s)
		}
		out := fmt.Sprintf(f, vs...)
		if strings.Contains(out, "%!") {
			return val{}, false
		}
		return str(out, at), true
	case "any2array":
		if len(args) == 0 {
			return val{k: vArr, at: at}, true
		}
		if args[0].k == vUnknown {
			return val{}, false
		}
		if args[0].k == vArr {
			return args[0], true
		}
		if len(args) == 1 {
			return val{k: vArr, arr: []val{args[0]}, at: at}, true
		}
		return val{k: vArr, arr: append([]val(nil), args...), at: at}, true
	case "unique":
		if len(args) == 1 && args[0].k == vArr {
			out := val{k: vArr, at: at}
			seen := map[string]bool{}
			for _, x := range args[0].arr {
				s, ok := x.text()
				if !ok {
					return val{}, false
				}
				if !seen[s] {
					seen[s] = true
					out.arr = append(out.arr, x)
				}
			}
			return out, true
		}
	case "empty":
		if len(args) == 1 {
			switch args[0].k {
			case vArr, vHash:
				return val{k: vBool, s: fmt.Sprint(len(args[0].arr) == 0), at: at}, true
			case vStr:
				if !args[0].pat {
					return val{k: vBool, s: fmt.Sprint(args[0].s == ""), at: at}, true
				}
			case vUndef:
				return val{k: vBool, s: "true", at: at}, true
			}
		}
	case "size", "length", "count":
		if len(args) == 1 && (args[0].k == vArr || args[0].k == vHash) {
			return val{k: vNum, s: fmt.Sprint(len(args[0].arr)), at: at}, true
		}
	case "str2bool":
		if s, ok := strArg(0); ok {
			switch strings.ToLower(s) {
			case "true", "yes", "y", "1", "t":
				return val{k: vBool, s: "true", at: at}, true
			case "false", "no", "n", "0", "f", "", "undef":
				return val{k: vBool, s: "false", at: at}, true
			}
		}
	case "String":
		if s, ok := strArg(0); ok {
			return str(s, at), true
		}
	case "keys", "values":
		if len(args) == 1 && args[0].k == vHash {
			out := val{k: vArr, at: at}
			if name == "keys" {
				out.arr = append(out.arr, args[0].hkeys()...)
			} else {
				out.arr = append(out.arr, args[0].arr...)
			}
			return out, true
		}
	case "merge":
		if len(args) >= 1 {
			acc := val{k: vHash, at: at, x: &valX{}}
			for _, a := range args {
				if a.k != vHash {
					return val{}, false
				}
				acc = mergeHash(acc, a, at)
			}
			return acc, true
		}
	}
	return val{}, false
}
