// Command ordering-lsp is the language server and command-line front end
// of ordering-lsp: it tells in what order Puppet, Salt, CFEngine, Chef and
// Rudder will apply configuration, and what is wrong with that order.
//
//	ordering-lsp serve            language server on stdin/stdout
//	ordering-lsp check PATH...    diagnostics (text, json, sarif)
//	ordering-lsp order FILE       execution order, one step per line
//	ordering-lsp graph PATH...    relationship graph as Graphviz DOT
//	ordering-lsp why PATH A B     why A runs before B
//	ordering-lsp diff --base REV  what a change does to the order
//	ordering-lsp version
package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/internal/filecache"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

func main() {
	args := useCache(os.Args[1:])
	if len(args) > 0 && args[0] != "serve" && args[0] != "--stdio" {
		batchMemory()
		filecache.Shared().SetKeepDiskHits(false) // each is read once
	}
	startHeapProfile()
	code := profiled(func() int { return run(args, os.Stdin, os.Stdout, os.Stderr) })
	filecache.Shared().Flush()
	os.Exit(code)
}

// useCache keeps parsed chunks in the user cache directory (the next run
// decodes them instead of parsing: filecache, parser/puppet/chunkcache.go)
// unless --no-cache (any command; removed from args) or ORDERING_CACHE=off
// says not to; ORDERING_CACHE_DIR puts it elsewhere. Only the program
// does this: tests that call run() keep nothing on disk.
func useCache(args []string) []string {
	out := make([]string, 0, len(args))
	off := false
	for i, a := range args {
		if a == "--" {
			out = append(out, args[i:]...)
			break
		}
		if a == "--no-cache" || a == "-no-cache" {
			off = true
			continue
		}
		out = append(out, a)
	}
	if !off {
		filecache.Shared().SetDir(filecache.Dir())
	}
	return out
}

// profiled runs f under a CPU profile written to $ORDERING_CPUPROFILE when
// it is set: the speed figures in the README are measured on the real
// binary, and this is how to see where its time goes.
func profiled(f func() int) int {
	if mp := os.Getenv("ORDERING_MEMPROFILE"); mp != "" {
		// Allocations (alloc_space) and what is live at exit (inuse_space).
		defer func() {
			runtime.GC() // the profile holds what the last collection saw
			if out, err := os.Create(mp); err == nil {
				pprof.Lookup("allocs").WriteTo(out, 0)
				out.Close()
			}
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			fmt.Fprintf(os.Stderr, "ORDERING_MEMPROFILE: allocated %d MB in %d objects, %d collections, peak heap %d MB\n",
				m.TotalAlloc>>20, m.Mallocs, m.NumGC-1, m.HeapSys>>20)
		}()
	}
	path := os.Getenv("ORDERING_CPUPROFILE")
	if path == "" {
		return f()
	}
	out, err := os.Create(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "ORDERING_CPUPROFILE:", err)
		return f()
	}
	defer out.Close()
	if err := pprof.StartCPUProfile(out); err != nil {
		fmt.Fprintln(os.Stderr, "ORDERING_CPUPROFILE:", err)
		return f()
	}
	defer pprof.StopCPUProfile()
	return f()
}

// newSystems makes fresh instances of every registered system.
func newSystems() []analysis.System {
	out := make([]analysis.System, 0, len(systems))
	for _, mk := range systems {
		out = append(out, mk())
	}
	return out
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "serve", "--stdio":
		return cmdServe(args[1:], stdin, stdout, stderr)
	case "check":
		return cmdCheck(args[1:], stdout, stderr)
	case "order":
		return cmdOrder(args[1:], stdout, stderr)
	case "graph":
		return cmdGraph(args[1:], stdout, stderr)
	case "why":
		return cmdWhy(args[1:], stdout, stderr)
	case "diff":
		return cmdDiff(args[1:], stdout, stderr)
	case "version", "--version", "-v":
		fmt.Fprintf(stdout, "ordering-lsp %s\n", version)
		return 0
	case "help", "-h", "--help":
		usage(stdout)
		return 0
	}
	fmt.Fprintf(stderr, "ordering-lsp: unknown command %q\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprint(w, `usage: ordering-lsp <command> [options]

commands:
  serve [--stdio] [--log FILE]          run the language server on stdin/stdout
  check [--format text|json|sarif] [options] PATH...
                                        report problems; exit 1 when there is an error
  order [options] FILE|DIR              print the execution order, one step per line;
                                        problems go to stderr; exit 1 when the tool would refuse to run
  graph [options] PATH...               print the relationship graph as Graphviz DOT
  why [options] FILE|DIR A B            the chain of relationships that makes A run before B
  diff --base REV [--format text|markdown|sarif] [PATH]
                                        what a change does to the order and the problems;
                                        exit 1 when it brings an error
  version                               print the version

every command takes --no-cache: parse every file, keep nothing in the
cache directory ($ORDERING_CACHE_DIR, else ordering-lsp/ in the user cache
directory; ORDERING_CACHE=off turns it off too).

check, order, graph and why take --set key=value and the options of each
system (--facts FILE, --modulepath, ...): run 'ordering-lsp order --help'.
check, order and graph take --install-modules: first install what the
repository declares but does not hold (a Puppetfile's modules, with r10k or
else g10k), then analyse it.
`)
}
