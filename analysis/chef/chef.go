// Package chef lowers Chef Policyfiles and their lock files into the
// neutral graph: the merged run list of every policy (RFC 097 "Policyfile
// Includes" as chef-cli implements it), the policy include graph, and the
// conflicts chef-cli reports when it compiles a policy, plus the include
// loops it does not detect.
//
// Merge rules (chef-cli's PolicyfileCompiler#expanded_run_list): the run
// list of each included policy's lock, in include_policy order, then the
// policy's own run_list; an item already present is not added again
// (Chef::RunList#<< compares type, name and version, before the name is
// normalised to recipe[cookbook::recipe]). Nothing here executes Ruby.
package chef

import (
	"bytes"
	"path/filepath"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	pchef "github.com/ordering-lsp/ordering-lsp/parser/chef"
)

type system struct {
	parser *pchef.Parser
}

// New returns the Chef Policyfile system.
func New() analysis.System { return &system{parser: pchef.NewParser()} }

func (s *system) Name() string           { return "chef" }
func (s *system) Flags() []analysis.Flag { return nil }

// Reads names the cookbook metadata a policy's analysis reads (a
// cookbook's name, which run-list entries and `metadata` resolve by):
// editing it analyses the policies again.
func (s *system) Reads(path string) bool {
	switch filepath.Base(path) {
	case "metadata.rb", "metadata.json":
		return true
	}
	return false
}

// Owns claims Policyfile.rb, *.rb policy files under policyfiles/ or
// policies/ that call run_list or include_policy, other *.rb files
// outside a cookbook that start lines with both default_source and
// run_list (a repository of policies named base.rb, web.rb, ...: `chef
// install base.rb`; a role has no default_source), and *.lock.json files
// that are policy locks.
func (s *system) Owns(path string, head func() []byte) bool {
	base := filepath.Base(path)
	slash := filepath.ToSlash(path)
	if strings.HasSuffix(base, ".rb") {
		if h := head(); h != nil && rubyTemplate(h) {
			return false
		}
	}
	switch {
	case base == "Policyfile.rb":
		return true
	case strings.HasSuffix(base, ".rb") && !inPolicyDir(slash):
		if cookbookPart(slash) {
			return false
		}
		h := head()
		return h != nil && lineStarts(h, "default_source") && lineStarts(h, "run_list")
	case strings.HasSuffix(base, ".lock.json"):
		h := head()
		return h != nil && pchef.LooksLikeLock(h)
	case strings.HasSuffix(base, ".rb"):
		if strings.Contains(slash, "/recipes/") || strings.Contains(slash, "/attributes/") || strings.Contains(slash, "/resources/") || strings.Contains(slash, "/libraries/") {
			return false
		}
		// a policy that only includes others has no run_list of its own
		h := head()
		return h != nil && (bytes.Contains(h, []byte("run_list")) || bytes.Contains(h, []byte("include_policy")))
	}
	return false
}

// rubyTemplate: the text is a template that renders a Policyfile, not one:
// a Terraform templatefile() (srb3/terraform-chef-policyfile's
// templates/Policyfile.rb: `default_source ${default_source}`, `%{ for
// ... }` lines) or ERB (`<% ... %>`). chef-cli only ever reads what the
// template renders; `ruby -c` refuses the template itself. A `${` inside a
// Ruby string literal is text, not a template.
func rubyTemplate(h []byte) bool {
	for _, line := range bytes.Split(h, []byte("\n")) {
		t := bytes.TrimLeft(line, " \t")
		if bytes.HasPrefix(t, []byte("%{")) || bytes.HasPrefix(t, []byte("<%")) {
			return true
		}
		var quote byte
		for i := 0; i < len(line); i++ {
			c := line[i]
			switch {
			case quote != 0 && c == '\\':
				i++
			case quote != 0 && c == quote:
				quote = 0
			case quote != 0:
			case c == '#':
				i = len(line) // a comment
			case c == '\'' || c == '"':
				quote = c
			case c == '$' && i+1 < len(line) && line[i+1] == '{', c == '<' && i+1 < len(line) && line[i+1] == '%':
				return true
			}
		}
	}
	return false
}

func inPolicyDir(slash string) bool {
	return strings.Contains(slash, "/policyfiles/") || strings.Contains(slash, "/policies/") ||
		strings.HasPrefix(slash, "policyfiles/") || strings.HasPrefix(slash, "policies/")
}

// cookbookPart: a file of a cookbook, a role or an environment, which
// may mention run_list but is not a policy.
func cookbookPart(slash string) bool {
	for _, d := range []string{"recipes", "attributes", "resources", "libraries", "providers", "definitions", "roles", "environments"} {
		if strings.Contains(slash, "/"+d+"/") || strings.HasPrefix(slash, d+"/") {
			return true
		}
	}
	return false
}

// lineStarts: some line of h starts with word (then a space, '(' or ':').
func lineStarts(h []byte, word string) bool {
	for rest := h; len(rest) > 0; {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		if after, ok := bytes.CutPrefix(line, []byte(word)); ok && len(after) > 0 && (after[0] == ' ' || after[0] == '(' || after[0] == '\t') {
			return true
		}
	}
	return false
}

func (s *system) Analyze(req *analysis.Request) *analysis.Result {
	a := newAnalyzer(s, req)
	res := a.run()
	analysis.WriteLines(res, req.Workspace) // the lines its words name (where)
	return res
}

// Movable implements analysis.Movable: every word of Chef's that names a
// line is a template (where: analysis.WhereMark, written by
// analysis.WriteLines), and no span reaches a file's ends (a policy is
// its statements, stmtsSpan).
func (s *system) Movable() {}
