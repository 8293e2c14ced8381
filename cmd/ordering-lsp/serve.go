package main

import (
	"context"
	"flag"
	"io"
	"log"
	"os"

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
