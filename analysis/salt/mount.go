package salt

import (
	"hash/maphash"
	"path/filepath"
	"strings"
	"sync"

	"github.com/ordering-lsp/ordering-lsp/internal/lazyre"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// A repository is not always a file root itself: it may be cloned into a
// folder P of one, or served by gitfs with `mountpoint: salt://P`
// (salt/utils/gitfs.py: every path of the remote is served as P/path).
// Its own files then say so: hakoerber/salt-states includes
// `states.xinetd`, imports `states/rsyslog/map.jinja` and serves
// `salt://states/nginx/...`, and has no folder named states. Read with
// its own folder as the root, none of that resolves; read as mounted at
// P, everything does, exactly as a checkout at P/ under a file root.
//
// inferMount infers P for a candidate file root (a repository folder the
// configuration names nothing for) from the references its files write:
// SLS names in list items (`- P.x`, `- sls: P.x`), Jinja
// `from`/`import`/`include` of a quoted path, and `salt://` paths. It
// returns P when:
//   - the root holds no top.sls (a root with its own top file is served
//     as it is), and neither it nor a folder above it has an entry named
//     P (a folder P, P.sls: then P/... resolves without a prefix from
//     there, as from the file root above a formula's package folder);
//   - at least mountMin references start with P and resolve once P is
//     taken off (the rest names a file or folder of the root; for an SLS
//     name, rest.sls or rest/init.sls);
//   - they are more than mountRatio times the references that resolve
//     as written (heroes-salt and khrisrichardson's layouts, a `salt/`
//     subfolder their own names use, resolve as written: no prefix).
//
// A master configuration naming file roots in the workspace decides
// instead (the caller does not ask then).
func inferMount(ws *source.Workspace, root string, files []*source.File, mc *mountCache) string {
	if mc == nil {
		mc = &mountCache{}
	}
	if ws.Exists(filepath.Join(root, "top.sls")) {
		return ""
	}
	plain := 0
	byPrefix := map[string]int{}
	for _, f := range files {
		if f.Path == "" || !strings.HasPrefix(f.Path, root+string(filepath.Separator)) {
			continue
		}
		c := mc.count(ws, root, f)
		plain += c.plain
		for p, n := range c.byPrefix {
			byPrefix[p] += n
		}
	}
	best, bestN := "", 0
	for p, n := range byPrefix {
		if n > bestN || n == bestN && p < best {
			best, bestN = p, n
		}
	}
	if bestN < mountMin || bestN <= mountRatio*plain || !mountNameRe.MatchString(best) {
		return ""
	}
	// P/... must not resolve as written from the root or a folder above
	// it: a formula's package folder (users-formula/users, whose files
	// name users.x) is already checked out at P/ of the file root above.
	for d, i := root, 0; i < 8; i++ {
		if ws.Exists(filepath.Join(d, best)) || ws.Exists(filepath.Join(d, best+".sls")) {
			return ""
		}
		p := filepath.Dir(d)
		if p == d {
			break
		}
		d = p
	}
	return best
}

// mountCache keeps what each file's references count (by its text) and
// which paths exist, while the analysed files stay the same: counting
// stats the disk for every reference (50 ms for REMnux's 393 files), an
// edit recounts the edited file only. Files created or deleted outside
// the analysed set (a salt:// source) are seen when that set changes.
type mountCache struct {
	mu     sync.Mutex
	sig    string
	exists map[string]bool
	counts map[string]mountCount // by root and URI
}

type mountCount struct {
	h, n     uint64
	plain    int
	byPrefix map[string]int
}

// reset starts over when the analysed files changed.
func (mc *mountCache) reset(sig string) {
	if mc.sig != sig || mc.exists == nil {
		mc.sig, mc.exists, mc.counts = sig, map[string]bool{}, map[string]mountCount{}
	}
}

func (mc *mountCache) count(ws *source.Workspace, root string, f *source.File) mountCount {
	if mc.exists == nil {
		mc.reset("")
	}
	key := root + "\x00" + f.URI
	h := maphash.Bytes(seed, f.Text)
	if c, ok := mc.counts[key]; ok && c.h == h && c.n == uint64(len(f.Text)) {
		return c
	}
	exists := func(rel string) bool {
		if rel == "" || strings.Contains(rel, "..") {
			return false
		}
		p := filepath.Join(root, filepath.FromSlash(rel))
		e, ok := mc.exists[p]
		if !ok {
			e = ws.Exists(p)
			mc.exists[p] = e
		}
		return e
	}
	slsExists := func(name string) bool {
		rel := strings.ReplaceAll(name, ".", "/")
		return exists(rel+".sls") || exists(rel+"/init.sls")
	}
	c := mountCount{h: h, n: uint64(len(f.Text)), byPrefix: map[string]int{}}
	note := func(first, rest string, resolves func(string) bool, whole string) {
		if resolves(whole) {
			c.plain++
			return
		}
		if first != "" && rest != "" && resolves(rest) {
			c.byPrefix[first]++
		}
	}
	for _, m := range slsNameRe.FindAllSubmatch(f.Text, -1) {
		n := string(m[1])
		first, rest, _ := strings.Cut(n, ".")
		note(first, rest, slsExists, n)
	}
	for _, re := range []*lazyre.Regexp{jinjaPathRe, saltURLRe} {
		for _, m := range re.FindAllSubmatch(f.Text, -1) {
			p := string(m[1])
			first, rest, _ := strings.Cut(p, "/")
			note(first, rest, exists, p)
		}
	}
	mc.counts[key] = c
	return c
}

const (
	mountMin   = 10
	mountRatio = 4
)

var (
	jinjaPathRe = lazyre.New(`\{%-?\s*(?:from|import|include)\s+['"]([^'"{}\s]+)['"]`)
	saltURLRe   = lazyre.New(`salt://([^\s'"?#{}]+)`)
	mountNameRe = lazyre.New(`^[A-Za-z0-9_][\w\-]*$`)
)

// mountedRel is the path under the mount point of a path relative to the
// real root: what Salt serves it as (salt://mount/rel).
func mountedRel(mount, rel string) string {
	if mount == "" {
		return rel
	}
	if rel == "" || rel == "." {
		return mount
	}
	return mount + "/" + rel
}

// unmount takes the mount point off a path a file writes (slash
// separated, relative to salt://): the path under the real root, or false
// when the path lies outside the mount (nothing the tree serves).
func unmount(mount, p string) (string, bool) {
	if mount == "" {
		return p, true
	}
	rest, ok := strings.CutPrefix(p, mount+"/")
	return rest, ok
}

// mountsOf infers the mount point of each repository folder (scopes) for
// which the configuration names no file root in the workspace.
func mountsOf(ws *source.Workspace, scopes []string, files []*source.File, cfg *cfgRoots, mc *mountCache) map[string]string {
	if cfg != nil && len(cfg.local) > 0 {
		return nil
	}
	mc.mu.Lock()
	defer mc.mu.Unlock()
	mc.reset(filesSig(files))
	var out map[string]string
	for _, sc := range scopes {
		if m := inferMount(ws, sc, files, mc); m != "" {
			if out == nil {
				out = map[string]string{}
			}
			out[sc] = m
		}
	}
	return out
}
