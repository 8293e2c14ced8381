package main

import (
	"context"
	"flag"
	"io"
	"log"
	"os"
	"runtime/debug"

	"github.com/ordering-lsp/ordering-lsp/lsp"
)

// stdio joins stdin and stdout into the one stream JSON-RPC wants.
type stdio struct {
	io.Reader
	io.Writer
}

// Close closes stdin so the reader stops at exit; stdout stays open for
// whatever the process still writes.
func (s stdio) Close() error {
	if c, ok := s.Reader.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// cmdServe runs the language server. Logs go to stderr (or --log FILE):
// stdout carries protocol frames only.
func cmdServe(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Bool("stdio", true, "use stdin/stdout (the only transport)")
	logFile := fs.String("log", "", "write the server log to this file instead of stderr")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	logOut := stderr
	if *logFile != "" {
		f, err := os.OpenFile(*logFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			log.New(stderr, "", 0).Printf("ordering-lsp: %v", err)
			return 2
		}
		defer f.Close()
		logOut = f
	}
	lsp.Version = version
	softMemoryLimit()
	srv := lsp.New(newSystems(), log.New(logOut, "ordering-lsp: ", log.LstdFlags))
	srv.SetFresh(newSystems)
	return srv.Serve(context.Background(), stdio{stdin, stdout})
}

// defaultMemoryLimit bounds the server's heap softly (runtime/debug's
// memory limit: the collector works harder near it, it is not a cap). An
// editor keeps the server for days; without it the heap of a big control
// repository grows to twice what the analysis keeps (Go's default GC
// target), and the garbage of each analysis on top: operations-puppet
// went from 2.5 GB after open to 4.4 GB after 10 edits. With 2 GiB it
// stays at 1.8-1.9 GB; the complete analysis, which runs in the
// background after the edited file's diagnostics are shown, takes 17 s
// instead of 10 s (1 GiB: 1.2-1.3 GB but 35 s). Small workspaces never
// reach it. GOMEMLIMIT overrides it.
const defaultMemoryLimit = 2 << 30

func softMemoryLimit() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(defaultMemoryLimit)
	}
}
