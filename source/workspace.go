package source

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// MaxFileSize is the largest file the workspace reads from disk. Larger
// files are reported by the loader rather than read: a 2 GB log file that
// happens to end in .pp must not take the server down.
const MaxFileSize = 64 << 20

// Workspace is the set of files an analysis may look at: documents open in
// the editor (which override the disk) and files on disk under the roots.
// Systems use Lookup to follow includes, autoload paths and inputs lazily,
// so nothing outside what an analysis actually needs is read.
type Workspace struct {
	mu       sync.Mutex
	roots    []string
	overlays map[string]*File // by URI
	// byPath finds open documents by local path. A document's URI is the
	// protocol library's canonical form (vscode-uri: `a%2Cb`, `c%2B%2B`),
	// which PathToURI does not reproduce for every path; a path is the
	// same whichever way its URI was spelled.
	byPath map[string]*File
	disk   map[string]*diskEntry
}

type diskEntry struct {
	file    *File
	modTime int64
	size    int64
}

// NewWorkspace makes a workspace over the given root folders (absolute or
// relative paths; may be empty).
func NewWorkspace(roots ...string) *Workspace {
	ws := &Workspace{overlays: map[string]*File{}, byPath: map[string]*File{}, disk: map[string]*diskEntry{}}
	for _, r := range roots {
		if abs, err := filepath.Abs(r); err == nil {
			ws.roots = append(ws.roots, abs)
		}
	}
	return ws
}

// Roots are the absolute workspace folders.
func (ws *Workspace) Roots() []string {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return append([]string(nil), ws.roots...)
}

// AddRoot adds a folder (the server does this on workspace folder changes).
func (ws *Workspace) AddRoot(root string) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	for _, r := range ws.roots {
		if r == root {
			return
		}
	}
	ws.roots = append(ws.roots, root)
}

// SetOverlay makes text the content of uri, whatever the disk says.
func (ws *Workspace) SetOverlay(f *File) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	ws.overlays[f.URI] = f
	if f.Path != "" {
		ws.byPath[filepath.Clean(f.Path)] = f
	}
}

// DropOverlay forgets an editor document; the disk version (if any) shows again.
func (ws *Workspace) DropOverlay(uri string) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if f := ws.overlays[uri]; f != nil && f.Path != "" && ws.byPath[filepath.Clean(f.Path)] == f {
		delete(ws.byPath, filepath.Clean(f.Path))
	}
	delete(ws.overlays, uri)
}

// Overlay returns the open document for uri, or nil.
func (ws *Workspace) Overlay(uri string) *File {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.overlays[uri]
}

// OverlayAt returns the open document whose local path is path, or nil.
func (ws *Workspace) OverlayAt(path string) *File {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.byPath[filepath.Clean(path)]
}

// Overlays lists the open documents, sorted by URI.
func (ws *Workspace) Overlays() []*File {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	out := make([]*File, 0, len(ws.overlays))
	for _, f := range ws.overlays {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].URI < out[j].URI })
	return out
}

// Lookup returns the file at an absolute local path: the open document if
// there is one, else the disk content (cached until the file changes), else
// nil when it does not exist, is a directory, or is too large.
func (ws *Workspace) Lookup(path string) *File {
	path = filepath.Clean(path)
	if f := ws.OverlayAt(path); f != nil {
		return f
	}
	st, err := os.Stat(path)
	// Only regular files: a FIFO or a device named in an include would
	// block the read forever.
	if err != nil || !st.Mode().IsRegular() || st.Size() > MaxFileSize {
		return nil
	}
	ws.mu.Lock()
	e := ws.disk[path]
	ws.mu.Unlock()
	if e != nil && e.modTime == st.ModTime().UnixNano() && e.size == st.Size() {
		return e.file
	}
	text, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	f := &File{URI: PathToURI(path), Path: path, Text: text}
	ws.mu.Lock()
	ws.disk[path] = &diskEntry{file: f, modTime: st.ModTime().UnixNano(), size: st.Size()}
	ws.mu.Unlock()
	return f
}

// Exists reports whether path is an open document or exists on disk (file or dir).
func (ws *Workspace) Exists(path string) bool {
	if ws.OverlayAt(path) != nil {
		return true
	}
	_, err := os.Stat(path)
	return err == nil
}

// IsDir reports whether path is a directory on disk.
func (ws *Workspace) IsDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// skipDir lists folders never worth walking: VCS metadata, dependency
// caches, editor state.
var skipDir = map[string]bool{".git": true, ".hg": true, ".svn": true, "node_modules": true, ".vscode-test": true, "vendor": false}

// Walk lists the local paths below the roots (and below extra, if given)
// for which keep returns true, plus every open document keep accepts, each
// once, sorted. It does not read file contents.
func (ws *Workspace) Walk(keep func(path string) bool, extra ...string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if !seen[p] && keep(p) {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, root := range append(ws.Roots(), extra...) {
		st, err := os.Stat(root)
		if err != nil {
			continue
		}
		if !st.IsDir() {
			add(root)
			continue
		}
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				if p != root && (skipDir[d.Name()] || strings.HasPrefix(d.Name(), ".")) {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() && !linkToFile(p, d) {
				return nil // sockets, FIFOs, devices; links to folders (loops)
			}
			add(p)
			return nil
		})
	}
	for _, f := range ws.Overlays() {
		if f.Path != "" {
			add(f.Path)
		}
	}
	sort.Strings(out)
	return out
}

// linkToFile: p is a symbolic link to a regular file. The tools read
// through such links (cf-agent runs websupport-sk/ocf's promises.cf, a
// link to common/promises.cf, with its inputs taken from the link's folder;
// Salt serves a linked .sls under the link's name), so the link is a file
// of the workspace at its own path. Links to folders are not followed: a
// link to an ancestor would walk forever.
func linkToFile(p string, d fs.DirEntry) bool {
	if d.Type()&fs.ModeSymlink == 0 {
		return false
	}
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// Fork returns a workspace over the same roots, open documents and disk
// cache, with the given files in place of theirs: "what if" analyses (the
// order after a quick fix) read it while the live workspace moves on.
func (ws *Workspace) Fork(over ...*File) *Workspace {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	f := &Workspace{roots: append([]string(nil), ws.roots...), overlays: make(map[string]*File, len(ws.overlays)+len(over)),
		byPath: make(map[string]*File, len(ws.byPath)+len(over)), disk: make(map[string]*diskEntry, len(ws.disk))}
	for k, v := range ws.overlays {
		f.overlays[k] = v
	}
	for k, v := range ws.byPath {
		f.byPath[k] = v
	}
	for k, v := range ws.disk {
		f.disk[k] = v
	}
	for _, o := range over {
		f.overlays[o.URI] = o
		if o.Path != "" {
			f.byPath[filepath.Clean(o.Path)] = o
		}
	}
	return f
}
