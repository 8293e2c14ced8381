package lsp

import (
	"context"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// snapshot is the analysis of one state of the workspace.
type snapshot struct {
	version uint64
	results []*analysis.Result
	// overlays are the open documents the analysis read, by URI: a
	// request on a document that has not changed since can be answered
	// from this snapshot while a newer analysis is still running.
	overlays map[string]*source.File
	// covers: for a provisional snapshot (the focused analysis of the
	// documents just edited, see firstDiagnostics), the documents it
	// answers for; nil for a complete one.
	covers map[string]bool
}

// answers reports whether the snapshot can speak of uri at all.
func (s *snapshot) answers(uri string) bool {
	return s != nil && (s.covers == nil || s.covers[uri])
}

// broken reports whether an open document of the snapshot has a syntax
// error.
func (s *snapshot) broken() bool {
	for _, r := range s.results {
		for _, d := range r.Diags {
			if d.Code == "syntax" && s.overlays[d.At.URI] != nil {
				return true
			}
		}
	}
	return false
}

// snapshotter re-analyses the workspace after every change, one analysis
// at a time (systems keep parse caches and are not safe for concurrent
// use), cancelling an analysis that a newer change made stale. Requests
// wait for the snapshot of the state they were sent in.
type snapshotter struct {
	s *Server

	mu      sync.Mutex
	cond    *sync.Cond
	version uint64 // bumped by every change
	current *snapshot
	// lastGood: while an open document does not parse, the newest snapshot
	// in which all of them did. Completion falls back on it for the broken
	// document's own declarations. Nil when current parses: a second
	// snapshot of a control repository is hundreds of MB.
	lastGood *snapshot
	// publishing: the snapshot whose diagnostics are being sent; it
	// becomes current once they are out, so an answer about a version
	// never reaches the client before that version's diagnostics.
	publishing *snapshot
	// provisional: the focused analysis of the documents edited since
	// current (nil when current is newer): requests on those documents
	// answer from it while the complete analysis runs.
	provisional *snapshot
	cancel      context.CancelFunc
	wake        chan struct{}
	// focus: documents opened or edited since the last complete
	// analysis; the next analysis shows their diagnostics first (see
	// Request.Focus), even when a change to everything (settings, files on
	// disk, the first analysis) also asks for a complete one.
	focus map[string]bool
	// settle: a change to everything (files on disk, settings) waits until
	// no other came for settleDelay, so a git checkout's storm of
	// notifications makes one analysis, not one per batch.
	settle time.Time

	// edited: when the last document change came; alone: it came more
	// than typingGap after the one before (a paste, a quick fix, a
	// keystroke after a pause), so no more are expected soon
	edited time.Time
	alone  bool
	now    func() time.Time // (nil: time.Now; tests set their own clock)

	published map[string]string // URI -> fingerprint of the diagnostics last sent
	// everything: the version of the last change to everything (settings:
	// the node picker's choice): a snapshot older than it answers nothing
	// about any document, however unchanged the document.
	everything uint64
}

const settleDelay = 100 * time.Millisecond

// typingPause: how long no edit must come after an edit's focused
// diagnostics before the complete analysis starts.
const typingPause = 250 * time.Millisecond

// typingGap: an edit that comes this long after the one before is not
// part of a burst of typing, and its complete analysis starts at once
// (waiting typingPause for keystrokes that will not come made every
// paste settle a quarter of a second later).
const typingGap = time.Second

func newSnapshotter(s *Server) *snapshotter {
	sn := &snapshotter{s: s, wake: make(chan struct{}, 1), published: map[string]string{}}
	sn.cond = sync.NewCond(&sn.mu)
	return sn
}

// invalidate records a change and asks the loop for a new analysis: uri
// is the document that changed, "" for a change to everything.
func (sn *snapshotter) invalidate(uri string) {
	sn.mu.Lock()
	if uri == "" {
		sn.settle = time.Now().Add(settleDelay)
	} else {
		if sn.focus == nil {
			sn.focus = map[string]bool{}
		}
		sn.focus[uri] = true
		now := sn.clock()
		sn.alone = now.Sub(sn.edited) > typingGap
		sn.edited = now
	}
	sn.version++
	if uri == "" {
		sn.everything = sn.version
	}
	if sn.cancel != nil {
		sn.cancel()
	}
	sn.mu.Unlock()
	select {
	case sn.wake <- struct{}{}:
	default:
	}
}

func (sn *snapshotter) loop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-sn.wake:
		}
		for {
			sn.mu.Lock()
			wait := time.Until(sn.settle)
			sn.mu.Unlock()
			if wait <= 0 {
				break
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
		}
		sn.mu.Lock()
		v := sn.version
		if sn.current != nil && sn.current.version == v {
			sn.mu.Unlock()
			continue
		}
		actx, cancel := context.WithCancel(ctx)
		sn.cancel = cancel
		var focus []string
		for u := range sn.focus {
			focus = append(focus, u)
		}
		sort.Strings(focus)
		sn.mu.Unlock()

		overlays := map[string]*source.File{}
		for _, f := range sn.s.ws.Overlays() {
			overlays[f.URI] = f
		}
		if len(focus) > 0 {
			sn.shiftedDiagnostics(focus)
			ok, partial := sn.firstDiagnostics(actx, v, focus, overlays)
			if !ok {
				cancel()
				continue // stale: a newer change is waiting
			}
			// While the user types, each keystroke's own diagnostics come
			// from the focused analysis; the complete one starts once
			// typing pauses, instead of being started and cancelled at
			// every keystroke (seconds of CPU each on a big repository).
			if !sn.pause(ctx, v, partial) {
				cancel()
				if ctx.Err() != nil {
					return
				}
				continue // a newer change is waiting
			}
		}
		pr := sn.s.startProgress("ordering-lsp", "analysing the workspace")
		results := sn.s.analyze(actx, pr, overlays)
		// an edit sets its text before it bumps the version: an analysis
		// that read it is stale too
		superseded := actx.Err() != nil || !sameOverlays(sn.s.ws, overlays) // (cancel below ends actx either way)
		cancel()
		// The indexes requests read are built while the diagnostics go
		// out, and are part of the snapshot: the first hover after an
		// analysis reads them ready.
		var indexed sync.WaitGroup
		if !superseded {
			for _, r := range results {
				indexed.Add(1)
				go func() {
					defer indexed.Done()
					r.Index()
				}()
			}
		}
		if superseded {
			pr.end("superseded by a newer change")
		} else {
			pr.end("done")
		}

		snap := &snapshot{version: v, results: results, overlays: overlays}
		sn.mu.Lock()
		stale := sn.version != v || superseded
		if !stale {
			sn.publishing = snap
		}
		sn.mu.Unlock()
		if stale {
			continue
		}
		sn.s.publishDiagnostics(results, nil)
		indexed.Wait()
		sn.mu.Lock()
		switch {
		case !snap.broken():
			sn.lastGood = nil
		case sn.current != nil && !sn.current.broken():
			sn.lastGood = sn.current
		case sn.lastGood == nil && sn.provisional != nil && !sn.provisional.broken():
			sn.lastGood = sn.provisional // the first complete analysis is of broken text
		}
		sn.current, sn.publishing = snap, nil
		if p := sn.provisional; p != nil && p.version <= v {
			sn.provisional = nil
		}
		if sn.version == v {
			sn.focus = nil
		}
		sn.cond.Broadcast()
		sn.mu.Unlock()
		// Lenses and inlay hints answered meanwhile came from an older or
		// a focused analysis.
		sn.s.refreshViews()
		sn.releaseWhenSettled(v)
	}
}

// firstDiagnostics runs a focused analysis of the edited documents and
// publishes their diagnostics at once, before the complete analysis (on a
// control repository one edit touches hundreds of runs: tens of
// milliseconds for the first, seconds for all). It reports false when the
// state it analysed is already stale.
//
// Its results become the provisional snapshot: hovers, lenses and
// definitions on the edited documents answer from it until the complete
// analysis lands.
func (sn *snapshotter) firstDiagnostics(ctx context.Context, v uint64, focus []string, overlays map[string]*source.File) (ok, partial bool) {
	results, partial := sn.s.analyzeFocus(ctx, focus, overlays)
	sn.mu.Lock()
	stale := sn.version != v || !sameOverlays(sn.s.ws, overlays)
	sn.mu.Unlock()
	if stale || ctx.Err() != nil {
		return false, partial
	}
	if !partial {
		return true, false
	}
	only := map[string]bool{}
	for _, u := range focus {
		only[u] = true
	}
	sn.s.publishDiagnostics(results, only)
	for _, r := range results {
		r.Index()
	}
	sn.mu.Lock()
	if sn.version == v {
		p := &snapshot{version: v, results: results, overlays: overlays, covers: only}
		if p.broken() && sn.lastGood == nil {
			// completion offers the broken document's declarations from
			// the newest analysis in which it parsed
			for _, prev := range []*snapshot{sn.provisional, sn.current} {
				if prev != nil && !prev.broken() {
					sn.lastGood = prev
					break
				}
			}
		}
		sn.provisional = p
		sn.cond.Broadcast()
	}
	sn.mu.Unlock()
	sn.s.refreshViews()
	return true, true
}

// typing: whether version v is an edit of a burst of typing (see
// typingGap), or not the newest any more.
func (sn *snapshotter) typing(v uint64) bool {
	sn.mu.Lock()
	defer sn.mu.Unlock()
	return !sn.alone || sn.version != v
}

func (sn *snapshotter) clock() time.Time {
	if sn.now != nil {
		return sn.now()
	}
	return time.Now()
}

// pause is the wait before the complete analysis of version v:
// typingPause after a partial first analysis, none after a complete one
// (its diagnostics are not out yet) or after an edit that came alone
// (typingGap). False when a newer change came (the
// loop's next turn handles it) or ctx ended.
func (sn *snapshotter) pause(ctx context.Context, v uint64, partial bool) bool {
	if !partial || !sn.typing(v) {
		return true
	}
	timer := time.NewTimer(typingPause)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-timer.C:
			return true
		case <-sn.wake:
			sn.mu.Lock()
			changed := sn.version != v
			sn.mu.Unlock()
			if changed {
				select { // for the loop's next turn
				case sn.wake <- struct{}{}:
				default:
				}
				return false
			}
			// a wake for v itself (two changes, one turn): keep pausing
		}
	}
}

// latestFor returns a snapshot that read the current text of uri: the
// newest one at once when uri is an open document that has not changed
// since it was taken (an edit elsewhere need not make a hover wait for a
// 5-second analysis of a large repository), or the provisional one of an
// edit of uri, else it waits for whichever comes first: one of those, or
// the snapshot of the newest state (as latest). Requests that write
// (rename, code actions) use it; those that read use viewFor.
func (sn *snapshotter) latestFor(ctx context.Context, uri string) *snapshot {
	return sn.fitting(ctx, uri, true)
}

// fitting returns the current or provisional snapshot if it read the
// current text of uri, waiting for one while ctx lasts; with orLatest,
// the snapshot of the newest state will do too. When ctx ends first: nil,
// or with orLatest the newest snapshot there is.
func (sn *snapshotter) fitting(ctx context.Context, uri string, orLatest bool) *snapshot {
	ov := sn.s.ws.Overlay(uri)
	fits := func(s *snapshot) bool {
		if s == nil {
			return false
		}
		f, ok := s.overlays[uri]
		return s.answers(uri) && ok && ov == f && s.version >= sn.everything
	}
	stop := context.AfterFunc(ctx, func() {
		sn.mu.Lock()
		sn.cond.Broadcast()
		sn.mu.Unlock()
	})
	defer stop()
	sn.mu.Lock()
	defer sn.mu.Unlock()
	for {
		switch cur := sn.current; {
		case fits(cur):
			return cur
		case fits(sn.provisional):
			return sn.provisional
		case orLatest && cur != nil && cur.version == sn.version:
			return cur
		case ctx.Err() != nil:
			if orLatest {
				return cur
			}
			return nil
		}
		sn.cond.Wait()
	}
}

// mapAfter: how long a reading request waits for an analysis of the
// current text before it answers from an older one (viewFor).
const mapAfter = 40 * time.Millisecond

// viewFor returns what a request reading about uri at offset off of its
// current text (off < 0: the whole document) answers from: a snapshot
// that read the current text if there is one or one lands within
// mapAfter, else the newest one that read an older version of the
// document, its positions mapped through the edits (shift), as long as
// off lies outside the edited region; otherwise it waits as latestFor.
// A hover during typing answers at once instead of after the seconds a
// big repository's analysis takes.
func (sn *snapshotter) viewFor(ctx context.Context, uri string, off int) view {
	wctx, cancel := context.WithTimeout(ctx, mapAfter)
	s := sn.fitting(wctx, uri, false)
	cancel()
	if s != nil {
		return view{snapshot: s}
	}
	ov := sn.s.ws.Overlay(uri)
	best := sn.newestWith(uri)
	if best != nil && ov != nil {
		m := newShift(uri, best.overlays[uri].Text, ov.Text)
		if _, ok := m.toOld(off); ok || off < 0 {
			return view{snapshot: best, m: m}
		}
	}
	return view{snapshot: sn.latestFor(ctx, uri)}
}

// newestWith returns the newest snapshot (provisional or current) that
// read some version of the open document uri and may answer about it (not
// older than the last change to everything); nil if none.
func (sn *snapshotter) newestWith(uri string) *snapshot {
	sn.mu.Lock()
	defer sn.mu.Unlock()
	var best *snapshot
	for _, s := range []*snapshot{sn.provisional, sn.current} {
		if s != nil && s.answers(uri) && s.overlays[uri] != nil && s.version >= sn.everything && (best == nil || s.version > best.version) {
			best = s
		}
	}
	return best
}

// latest waits for the snapshot of the newest state, or until ctx ends
// (then it returns the newest snapshot there is, possibly nil).
func (sn *snapshotter) latest(ctx context.Context) *snapshot {
	stop := context.AfterFunc(ctx, func() {
		sn.mu.Lock()
		sn.cond.Broadcast()
		sn.mu.Unlock()
	})
	defer stop()
	sn.mu.Lock()
	defer sn.mu.Unlock()
	for (sn.current == nil || sn.current.version != sn.version) && ctx.Err() == nil {
		sn.cond.Wait()
	}
	return sn.current
}

// touch records that the document uri changed: only the system that owns
// it needs a new analysis (an edit in a .pp file must not re-run CFEngine
// over masterfiles).
func (s *Server) touch(uri string) {
	s.noteDocument(uri)
	s.markDirty(uri)
	s.snap.invalidate(uri)
}

// markDirty marks the systems owning uri for re-analysis without starting
// one (didClose marks before it drops the buffer that tells the owner).
func (s *Server) markDirty(uri string) {
	owners := s.owners(uri, s.ws.Overlay(uri))
	// and the systems that read the file without owning it
	if path := source.URIToPath(uri); path != "" {
		for _, sys := range s.systems {
			if rd, ok := sys.(analysis.Reader); ok && !slices.Contains(owners, sys) && rd.Reads(path) {
				owners = append(owners, sys)
			}
		}
	}
	s.mu.Lock()
	for _, sys := range owners {
		s.dirty[sys] = true
	}
	s.mu.Unlock()
}

// ownerMoved follows a document whose owner changed with its text:
// CFEngine, Chef and Rudder claim a file by its first bytes, so an edit,
// an open or a close (which hands the file back to the disk) can give the
// path to another system, or to none. The cached walk of the workspace
// read the old text, and markDirty only reaches the new owner: walk again
// and have both owners analyse again, as a fresh server would.
func (s *Server) ownerMoved(u string, was []analysis.System) {
	if source.URIToPath(u) == "" {
		return // an untitled buffer is never in the walk
	}
	now := s.owners(u, s.ws.Overlay(u))
	if slices.Equal(was, now) {
		return
	}
	s.mu.Lock()
	s.rediscover = true
	s.gen++
	for _, sys := range append(was, now...) {
		s.dirty[sys] = true
	}
	s.mu.Unlock()
}

// touchAll asks for a new analysis by every system (settings, file
// creation and deletion, workspace folders).
func (s *Server) touchAll() {
	s.mu.Lock()
	s.gen++
	for _, sys := range s.systems {
		s.dirty[sys] = true
	}
	s.mu.Unlock()
	s.snap.invalidate("")
}

// analyze runs the systems whose files changed since the last analysis
// and reuses the other systems' results.
func (s *Server) analyze(ctx context.Context, pr *progress, read map[string]*source.File) []*analysis.Result {
	s.mu.Lock()
	in := analysis.Input{Ctx: ctx, Workspace: s.ws, Settings: cloneSettings(s.settings)}
	dirty := s.dirty
	s.dirty = map[analysis.System]bool{}
	s.mu.Unlock()
	results := s.analyzeSystems(ctx, in, dirty, false, pr, read)
	if ctx.Err() != nil {
		// Superseded: the next analysis must redo these systems.
		s.mu.Lock()
		for sys := range dirty {
			s.dirty[sys] = true
		}
		s.mu.Unlock()
	}
	return results
}

// analyzeFocus is a first, focused analysis of the systems that need one
// (Request.Focus): their results may be partial and are not kept; the
// complete analysis follows. partial reports whether any result is.
func (s *Server) analyzeFocus(ctx context.Context, focus []string, read map[string]*source.File) (results []*analysis.Result, partial bool) {
	s.mu.Lock()
	in := analysis.Input{Ctx: ctx, Workspace: s.ws, Settings: cloneSettings(s.settings), Focus: focus}
	dirty := map[analysis.System]bool{}
	for sys := range s.dirty {
		dirty[sys] = true
	}
	s.mu.Unlock()
	results = s.analyzeSystems(ctx, in, dirty, true, nil, read)
	for _, r := range results {
		partial = partial || r.Partial
	}
	return results, partial
}

// analyzeSystems analyses the dirty systems and reuses the others' last
// results. A focused analysis (transient) keeps only the results that are
// complete; the complete analysis redoes the systems that gave a partial
// one (from the caches the focused one warmed).
// pr, when set, hears how far each system is.
func (s *Server) analyzeSystems(ctx context.Context, in analysis.Input, dirty map[analysis.System]bool, transient bool, pr *progress, now map[string]*source.File) []*analysis.Result {
	s.mu.Lock()
	if s.discovered == nil || s.rediscover {
		s.mu.Unlock()
		d := analysis.Discover(s.systems, in)
		s.mu.Lock()
		s.discovered, s.rediscover = d, false
	}
	discovered := s.discovered
	gen := s.gen
	s.mu.Unlock()
	// Open documents that were not on disk when the workspace was walked
	// (new files) still need an owner.
	extra := map[analysis.System][]string{}
	for sys, ps := range discovered {
		extra[sys] = ps
	}
	known := map[string]bool{}
	for _, ps := range discovered {
		for _, p := range ps {
			known[p] = true
		}
	}
	for _, f := range s.ws.Overlays() {
		if f.Path == "" || known[f.Path] {
			continue
		}
		for _, sys := range s.systems {
			text := f.Text
			if sys.Owns(f.Path, func() []byte { return head(text) }) {
				extra[sys] = append(extra[sys], f.Path)
				break
			}
		}
	}
	// the workspace's files, read once a system must be analysed: a
	// keystroke the last results follow (layoutCutoff) reads none (a stat
	// of every file of operations-puppet was ~70 ms of each)
	var files map[analysis.System][]*source.File
	var results []*analysis.Result
	for _, sys := range s.systems {
		s.mu.Lock()
		prev, had := s.last[sys]
		s.mu.Unlock()
		if had && !dirty[sys] {
			if prev != nil {
				results = append(results, prev)
			}
			continue
		}
		var r *analysis.Result
		if moved, ok := s.layoutCutoff(sys, prev, had, gen, now); ok {
			r = moved
		} else if files == nil {
			files = analysis.Load(s.systems, in, extra)
		}
		if r == nil && len(files[sys]) > 0 {
			sin := in
			if pr != nil {
				sin.Progress = pr.counter(sys.Name())
			}
			r = analysis.Analyze(sys, sin, files[sys])
		}
		if ctx.Err() != nil {
			return results
		}
		if !transient || r == nil || !r.Partial {
			same := sameOverlays(s.ws, now) // before the lock: it takes the workspace's
			s.mu.Lock()
			s.last[sys] = r
			if same && s.gen == gen {
				s.lastRead[sys] = readState{overlays: now, gen: gen}
			} else {
				// An edit landed while sys ran, before it could cancel
				// the analysis: sys may have read either text.
				delete(s.lastRead, sys)
			}
			if transient {
				// Complete after all (the system ignores Focus): the
				// complete analysis reuses it.
				delete(s.dirty, sys)
			}
			s.mu.Unlock()
		}
		if r != nil {
			results = append(results, r)
		}
	}
	return results
}

func head(b []byte) []byte {
	if len(b) > 4096 {
		return b[:4096]
	}
	return b
}

func cloneSettings(in analysis.Settings) analysis.Settings {
	out := make(analysis.Settings, len(in))
	for k, v := range in {
		out[k] = v
	}
	return out
}
