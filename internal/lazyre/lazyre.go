// Package lazyre is a regular expression compiled when it is first used
// rather than when the program starts.
//
// Every run of the program, `--help` included, ran the package-level
// regexp.MustCompile of every system (some fifty expressions) before
// main: a quarter of the CPU of `ordering-lsp --help` and a millisecond
// or two of every command, though a run uses the expressions of one
// system at most. A package declares its expressions with New instead
// and calls the same methods as on a *regexp.Regexp. An expression that
// does not compile still panics, at its first use; CompileAll, called by
// a test of the program (which links every system), keeps that a test
// failure rather than a user's crash.
package lazyre

import (
	"regexp"
	"sync"
)

// Regexp is a regexp.Regexp compiled at its first use.
type Regexp struct {
	expr string
	get  func() *regexp.Regexp
}

var (
	mu  sync.Mutex
	all []*Regexp
)

// New returns the expression expr, to be compiled when first used.
func New(expr string) *Regexp {
	r := &Regexp{expr: expr, get: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })}
	mu.Lock()
	all = append(all, r)
	mu.Unlock()
	return r
}

// CompileAll compiles every expression declared so far and returns the
// first that does not compile, with its error.
func CompileAll() (string, error) {
	mu.Lock()
	rs := append([]*Regexp(nil), all...)
	mu.Unlock()
	for _, r := range rs {
		if _, err := regexp.Compile(r.expr); err != nil {
			return r.expr, err
		}
	}
	return "", nil
}

// Regexp returns the compiled expression.
func (r *Regexp) Regexp() *regexp.Regexp { return r.get() }

func (r *Regexp) String() string { return r.expr }

func (r *Regexp) Match(b []byte) bool                  { return r.get().Match(b) }
func (r *Regexp) MatchString(s string) bool            { return r.get().MatchString(s) }
func (r *Regexp) FindString(s string) string           { return r.get().FindString(s) }
func (r *Regexp) FindStringSubmatch(s string) []string { return r.get().FindStringSubmatch(s) }
func (r *Regexp) FindStringSubmatchIndex(s string) []int {
	return r.get().FindStringSubmatchIndex(s)
}
func (r *Regexp) FindSubmatch(b []byte) [][]byte   { return r.get().FindSubmatch(b) }
func (r *Regexp) FindSubmatchIndex(b []byte) []int { return r.get().FindSubmatchIndex(b) }
func (r *Regexp) FindAllSubmatch(b []byte, n int) [][][]byte {
	return r.get().FindAllSubmatch(b, n)
}
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.get().FindAllStringSubmatch(s, n)
}
func (r *Regexp) ReplaceAllString(src, repl string) string {
	return r.get().ReplaceAllString(src, repl)
}
func (r *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return r.get().ReplaceAllStringFunc(src, repl)
}
