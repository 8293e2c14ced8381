package analysis

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/ordering-lsp/ordering-lsp/source"
)

// Installer is implemented by systems whose workspaces declare code that a
// standard tool fetches from elsewhere: a Puppetfile's modules, which r10k
// or g10k put in its moduledir. Until it is there the analysis can only
// give hints about what that code would do; the jobs install it, and the
// next analysis reads it like any other file. The server offers the jobs
// as a command (and as a quick fix on the diagnostics they resolve), the
// command line runs them before analysing (`check --install-modules`).
//
// InstallJobs may be called while the same system value analyses: it must
// read only req, never the system's caches.
type Installer interface {
	// InstallJobs lists what is declared but not installed, one job per
	// declaring file (nil when everything is there). req.Files are the
	// system's files; only Workspace, Files and Settings are set.
	InstallJobs(req *Request) []InstallJob
}

// InstallJob is one run of an installer.
type InstallJob struct {
	// Title is what the user is offered: "Install 3 modules of Puppetfile
	// with r10k".
	Title string
	// Declares is the local path of the file that declares what the job
	// installs (the Puppetfile): it names the job.
	Declares string
	// Dir is the working directory, Argv the command and its arguments.
	Dir  string
	Argv []string
	// Err says why the job cannot run (no installer on PATH, and how to
	// get one); Argv is empty then.
	Err string
	// Fills are the folders (or files) the job creates: each missing
	// module's folder.
	Fills []string
	// Resolves are the codes of the diagnostics the job resolves
	// ("module-not-installed"): the server offers the job as their quick fix.
	Resolves []string
}

// ResolvesCode reports whether the job resolves diagnostics with code c.
func (j InstallJob) ResolvesCode(c string) bool {
	for _, r := range j.Resolves {
		if r == c {
			return true
		}
	}
	return false
}

// InstallJobs asks every Installer among systems for its jobs over the
// files of in (its Paths, the workspace roots, the open documents).
func InstallJobs(systems []System, in Input) []InstallJob {
	return InstallJobsOf(systems, in, Files(systems, in))
}

// InstallJobsOf is InstallJobs over files already loaded for each system.
func InstallJobsOf(systems []System, in Input, files map[System][]*source.File) []InstallJob {
	var out []InstallJob
	for _, s := range systems {
		inst, ok := s.(Installer)
		if !ok {
			continue
		}
		out = append(out, inst.InstallJobs(&Request{Ctx: in.Ctx, Files: files[s], Workspace: in.Workspace, Settings: in.Settings, Once: in.Once})...)
	}
	return out
}

// Run runs the job in its folder, calling line with each line it prints
// (standard output and error, interleaved as they come). The installer
// reads nothing from standard input, and git does not prompt for
// credentials (a language server has no terminal to answer on): a source
// that needs them fails. The error names the command, its exit status
// and its last lines, and the folders it should have filled and did not.
func (j InstallJob) Run(ctx context.Context, line func(string)) error {
	if len(j.Argv) == 0 {
		if j.Err != "" {
			return errors.New(j.Err)
		}
		return fmt.Errorf("%s: nothing to run", j.Title)
	}
	cmd := exec.CommandContext(ctx, j.Argv[0], j.Argv[1:]...)
	cmd.Dir = j.Dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=true", "SSH_ASKPASS=true")
	if os.Getenv("GIT_SSH_COMMAND") == "" && os.Getenv("GIT_SSH") == "" {
		cmd.Env = append(cmd.Env, "GIT_SSH_COMMAND=ssh -o BatchMode=yes")
	}
	// A cancelled installer's git children may hold its output open.
	cmd.WaitDelay = 5 * time.Second
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	var (
		mu   sync.Mutex
		tail []string
		wg   sync.WaitGroup
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			l := strings.TrimRight(stripANSI(sc.Text()), " \t\r")
			if l == "" {
				continue
			}
			mu.Lock()
			tail = append(tail, l)
			if len(tail) > 5 {
				tail = tail[1:]
			}
			mu.Unlock()
			if line != nil {
				line(l)
			}
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	err := cmd.Run()
	pw.Close()
	wg.Wait()
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%s: cancelled", strings.Join(j.Argv, " "))
		}
		msg := fmt.Sprintf("%s in %s: %v", strings.Join(j.Argv, " "), j.Dir, err)
		if len(tail) > 0 {
			msg += ":\n" + strings.Join(tail, "\n")
		}
		return errors.New(msg)
	}
	var missing []string
	for _, d := range j.Fills {
		if _, err := os.Stat(d); err != nil {
			missing = append(missing, d)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s ran but did not fill %s", strings.Join(j.Argv, " "), strings.Join(missing, ", "))
	}
	return nil
}

// stripANSI drops terminal colour sequences (ESC [ ... letter).
func stripANSI(s string) string {
	if !strings.Contains(s, "\x1b[") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && !(s[j] >= '@' && s[j] <= '~') {
				j++
			}
			i = j
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
