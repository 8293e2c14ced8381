package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// installCommand installs what the workspace declares but does not hold
// (analysis.Installer: a Puppetfile's modules), then analyses again.
// Arguments: none (every job), or objects {"declares": PATH} naming the
// jobs by the file that declares what they install.
const installCommand = "ordering.installModules"

func init() {
	register("workspace/executeCommand", method{call: (*Server).executeCommand, async: true,
		caps: func(c *protocol.ServerCapabilities) {
			c.ExecuteCommandProvider.Commands = append(c.ExecuteCommandProvider.Commands, installCommand, nodesCommand, nodeMatrixCommand)
		}})
}

type executeCommandParams struct {
	Command       string            `json:"command"`
	Arguments     []json.RawMessage `json:"arguments"`
	WorkDoneToken json.RawMessage   `json:"workDoneToken"`
}

// installResult is the answer to installCommand.
type installResult struct {
	Message string   `json:"message"`
	Jobs    []string `json:"jobs"`  // titles of the jobs run
	Fills   []string `json:"fills"` // folders they filled
}

func (s *Server) executeCommand(ctx context.Context, raw json.RawMessage) (any, error) {
	var p executeCommandParams
	if len(raw) == 0 {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "missing params")
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "invalid params: "+err.Error())
	}
	switch p.Command {
	case installCommand:
		return s.installDeclared(ctx, p)
	case nodesCommand:
		return s.listNodes(ctx)
	case nodeMatrixCommand:
		if len(p.Arguments) != 1 {
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, nodeMatrixCommand+" takes one argument: {textDocument: {uri}, position}")
		}
		return s.orderingNodeMatrix(ctx, p.Arguments[0])
	}
	return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("unknown command %q", p.Command))
}

// installing: one installation at a time (two r10k runs on one
// moduledir would trip over each other).
var installing sync.Mutex

// installDeclared runs the install jobs one after the other, reporting
// each and every line it prints as work-done progress, then has the
// workspace walked again (the installed files are new) and answers once
// the diagnostics of the new analysis are out. A job that fails does not
// stop the others; the answer is then an error saying what failed.
func (s *Server) installDeclared(ctx context.Context, p executeCommandParams) (any, error) {
	want := map[string]bool{}
	for _, a := range p.Arguments {
		var arg struct {
			Declares string `json:"declares"`
		}
		if json.Unmarshal(a, &arg) == nil && arg.Declares != "" {
			want[arg.Declares] = true
		}
	}
	if !installing.TryLock() {
		return nil, fmt.Errorf("an installation is already running")
	}
	defer installing.Unlock()
	var jobs []analysis.InstallJob
	for _, j := range s.installJobs(ctx) {
		if len(want) == 0 || want[j.Declares] {
			jobs = append(jobs, j)
		}
	}
	if len(jobs) == 0 {
		msg := "Nothing to install: what the workspace declares is installed"
		s.notifyClient("window/showMessage", &protocol.ShowMessageParams{Type: protocol.MessageTypeInfo, Message: msg})
		return installResult{Message: msg, Jobs: []string{}, Fills: []string{}}, nil
	}
	pr := s.commandProgress(p.WorkDoneToken, "Installing", jobs[0].Title)
	res := installResult{Jobs: []string{}, Fills: []string{}}
	var failed []string
	for _, j := range jobs {
		if ctx.Err() != nil {
			break
		}
		pr.report(j.Title)
		s.logger.Printf("%s: %s", j.Title, strings.Join(j.Argv, " "))
		err := j.Run(ctx, func(line string) {
			s.logger.Printf("  %s", line)
			pr.report(line)
		})
		if err != nil {
			s.logger.Printf("%s: %v", j.Title, err)
			failed = append(failed, err.Error())
			continue
		}
		res.Jobs = append(res.Jobs, j.Title)
		for _, d := range j.Fills {
			res.Fills = append(res.Fills, s.display(d))
		}
	}
	switch {
	case ctx.Err() != nil:
		pr.end("cancelled")
	case len(failed) > 0:
		pr.end("failed")
	default:
		pr.end("done")
	}
	if len(res.Jobs) > 0 {
		// The installed files are new to the workspace: walk it again, as
		// after files are created behind the editor's back.
		s.mu.Lock()
		s.rediscover = true
		s.mu.Unlock()
		s.touchAll()
		s.snap.latest(ctx)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if len(failed) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(failed, "\n"))
	}
	res.Message = fmt.Sprintf("Installed %s", strings.Join(res.Fills, ", "))
	s.notifyClient("window/showMessage", &protocol.ShowMessageParams{Type: protocol.MessageTypeInfo, Message: res.Message})
	return res, nil
}

// installJobs lists the jobs of every Installer over the files the
// server analyses.
func (s *Server) installJobs(ctx context.Context) []analysis.InstallJob {
	s.mu.Lock()
	in := analysis.Input{Ctx: ctx, Workspace: s.ws, Settings: cloneSettings(s.settings)}
	discovered := s.discovered
	s.mu.Unlock()
	if discovered == nil {
		discovered = analysis.Discover(s.systems, in)
	}
	return analysis.InstallJobsOf(s.systems, in, analysis.Load(s.systems, in, discovered))
}

// display is a local path relative to the workspace folder holding it.
func (s *Server) display(path string) string {
	for _, r := range s.ws.Roots() {
		if rel := analysis.Rel(r, path); rel != path {
			return rel
		}
	}
	return path
}

// command is an LSP Command (a code action that runs one).
type command struct {
	Title     string `json:"title"`
	Command   string `json:"command"`
	Arguments []any  `json:"arguments,omitempty"`
}

// installActions offers, on the diagnostics in [lo, hi] of f that an
// install job resolves, that job as a quick fix running installCommand.
func (s *Server) installActions(snap *snapshot, f *source.File, lo, hi int) []codeAction {
	var out []codeAction
	for _, r := range snap.results {
		if inst, ok := s.systemNamed(r.System).(analysis.Installer); ok {
			out = append(out, s.installFixes(inst, r, f, lo, hi)...)
		}
	}
	return out
}

func (s *Server) installFixes(inst analysis.Installer, r *analysis.Result, f *source.File, lo, hi int) []codeAction {
	var hit []analysis.Diagnostic
	for _, d := range r.Diags {
		if d.Code != "" && d.At.URI == f.URI && d.At.End >= lo && d.At.Start <= hi {
			hit = append(hit, d)
		}
	}
	if len(hit) == 0 {
		return nil
	}
	s.mu.Lock()
	settings := cloneSettings(s.settings)
	s.mu.Unlock()
	var out []codeAction
	for _, j := range inst.InstallJobs(&analysis.Request{Files: []*source.File{f}, Workspace: s.ws, Settings: settings}) {
		var ds []protocol.Diagnostic
		for _, d := range hit {
			if j.ResolvesCode(d.Code) {
				ds = append(ds, s.toDiagnostic(d))
			}
		}
		if len(ds) == 0 {
			continue
		}
		out = append(out, codeAction{Title: j.Title, Kind: "quickfix", Diagnostics: ds,
			Command: &command{Title: j.Title, Command: installCommand, Arguments: []any{map[string]string{"declares": j.Declares}}}})
	}
	return out
}
