package analysis

import (
	"context"
	"strconv"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/source"
)

// System is one configuration-management tool. Adding a tool means
// writing a System and registering its constructor in cmd/ordering-lsp;
// the server and the CLI need no change.
//
// A System value is long-lived in the server: it may cache parsed chunks
// between calls. Analyze is never called concurrently on one value.
type System interface {
	// Name is the short lower-case name: "puppet", "salt", "cfengine",
	// "chef", "rudder". It is the diagnostic source and the settings prefix.
	Name() string
	// Owns reports whether the file at path belongs to this system. Most
	// systems decide on the path alone; those that must look at content
	// (JSON exports, lock files) call head, which returns the first 4 KiB
	// of the file (nil when it cannot be read).
	Owns(path string, head func() []byte) bool
	// Analyze builds the graph, runs and diagnostics for the files.
	Analyze(req *Request) *Result
	// Flags are the system's `order` command-line options.
	Flags() []Flag
}

// Reader is implemented by systems whose analysis reads files they do not
// own: configuration and data (a Puppetfile, Hiera data, a Salt master
// configuration, Jinja imports). The server analyses the system again
// when one of them is edited, as when one of its own files is.
type Reader interface {
	Reads(path string) bool
}

// LanguageOwner is implemented by systems that can claim editor buffers
// with no file name (untitled:) by the editor's languageId.
type LanguageOwner interface {
	OwnsLanguage(languageID string) bool
}

// Request is what a system analyses.
type Request struct {
	Ctx context.Context
	// Files are the files this system owns in the workspace: open editor
	// documents and files on disk under the workspace roots (or the paths
	// given on the command line), with open documents overriding the disk.
	Files []*source.File
	// Entry is the URI of the file `order` was asked about ("" in the
	// server). A system makes its main Run start there.
	Entry string
	// Workspace resolves further files by path: module autoload, includes,
	// inputs, lock files.
	Workspace *source.Workspace
	Settings  Settings
	// Focus names the documents whose diagnostics the caller wants first
	// (the server: the ones just edited). A system may then analyse only
	// what those diagnostics need and return a Result with Partial set;
	// the server follows with a complete analysis. Systems that are fast
	// enough whole ignore it.
	Focus []string
	// Once: nothing will be analysed again with this system value (the
	// command line, a preview): it need not keep what would make a next
	// analysis faster.
	Once bool
	// DiagnosticsOnly: the caller reads the Result's Diags and Files and
	// nothing else (the check command). A system may skip what only
	// hover, links, steps and the graph show.
	DiagnosticsOnly bool
	// OrderOnly: the caller reads the Result's Diags and its Runs (entry,
	// steps' labels, refused) and nothing else (the order command). A
	// system may skip what only hover and links show.
	OrderOnly bool
	// Progress, when set, hears how far a long analysis is: done units of
	// about total (a system's own unit: Puppet's runs). Called from the
	// analysis's goroutine; it must return quickly.
	Progress func(done, total int)
}

// Report passes progress on to the caller, if it listens.
func (r *Request) Report(done, total int) {
	if r.Progress != nil {
		r.Progress(done, total)
	}
}

// Canceled reports whether the caller gave up on this request; long
// analyses check it between phases and return what they have.
func (r *Request) Canceled() bool {
	return r.Ctx != nil && r.Ctx.Err() != nil
}

// Flag is an `order` option of one system, stored in Settings under Key.
type Flag struct {
	Name string // command-line name without dashes: "modulepath"
	Key  string // settings key: "puppet.modulepath"
	Help string
	Bool bool
	// Path: the value names files or folders (colon-separated when
	// several). A relative one is the command line's current folder's
	// (made absolute there); the server's settings read it against the
	// first workspace folder.
	Path bool
}

// Settings are user options keyed "system.option" (from the editor's
// initializationOptions / didChangeConfiguration, or the command line).
// Values are strings; systems parse what they need.
type Settings map[string]string

// Get returns the value of key or def when unset.
func (s Settings) Get(key, def string) string {
	if v, ok := s[key]; ok && v != "" {
		return v
	}
	return def
}

// Bool returns a boolean setting ("true", "1", "yes", "on").
func (s Settings) Bool(key string, def bool) bool {
	v, ok := s[key]
	if !ok || v == "" {
		return def
	}
	switch strings.ToLower(v) {
	case "true", "1", "yes", "on":
		return true
	case "false", "0", "no", "off":
		return false
	}
	return def
}

// Int returns an integer setting.
func (s Settings) Int(key string, def int) int {
	if n, err := strconv.Atoi(s[key]); err == nil {
		return n
	}
	return def
}

// Flatten turns a nested settings object (as editors send it:
// {"puppet": {"ordering": "title-hash"}}) into dotted keys.
func Flatten(prefix string, v any, out Settings) {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			key := k
			if prefix != "" {
				key = prefix + "." + k
			}
			Flatten(key, x, out)
		}
	case nil:
	case string:
		out[prefix] = t
	case bool:
		out[prefix] = strconv.FormatBool(t)
	case float64:
		out[prefix] = strconv.FormatFloat(t, 'f', -1, 64)
	default:
		out[prefix] = strings.TrimSpace(strings.Trim(strings.ReplaceAll(strings.ReplaceAll(toString(t), "\n", " "), "\t", " "), " "))
	}
}

func toString(v any) string {
	switch t := v.(type) {
	case []any:
		parts := make([]string, 0, len(t))
		for _, x := range t {
			parts = append(parts, toString(x))
		}
		return strings.Join(parts, ",")
	case string:
		return t
	case bool:
		return strconv.FormatBool(t)
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64)
	}
	return ""
}
