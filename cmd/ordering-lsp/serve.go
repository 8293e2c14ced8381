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
// memory limit: the collector works harder near it, it is not a cap; past
// it the collector takes at most half the CPU, so a bigger workspace
// slows down instead of failing). An editor keeps the server for days;
// Go's default target lets the heap grow to twice what is live, and on
// operations-puppet the complete analysis after an edit keeps ~330 MB
// live at its peak (the last result, the run cache and the runs being
// rebuilt), ~180 MB between edits. Measured there with TestLatency
// (10 edits): with 560 MiB the server stays at 531-556 MB RSS, the
// edited file's diagnostics arrive in p50 111 ms / p95 133 ms and the
// complete analysis takes 9.7 s; with 2 GiB, 595-736 MB, 97/141 ms,
// 9.0 s. Small workspaces never reach it. GOMEMLIMIT overrides it.
const defaultMemoryLimit = 560 << 20

func softMemoryLimit() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(defaultMemoryLimit)
	}
}
