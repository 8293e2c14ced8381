package lsp

import (
	"context"
	"sync"

	"github.com/ordering-lsp/ordering-lsp/analysis"
)

// snapshot is the analysis of one state of the workspace.
type snapshot struct {
	version uint64
	results []*analysis.Result
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
	cancel  context.CancelFunc
	wake    chan struct{}

	published map[string]string // URI -> fingerprint of the diagnostics last sent
}

func newSnapshotter(s *Server) *snapshotter {
	sn := &snapshotter{s: s, wake: make(chan struct{}, 1), published: map[string]string{}}
	sn.cond = sync.NewCond(&sn.mu)
	return sn
}

// invalidate records a change and asks the loop for a new analysis.
func (sn *snapshotter) invalidate() {
	sn.mu.Lock()
	sn.version++
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
		sn.mu.Lock()
		v := sn.version
		if sn.current != nil && sn.current.version == v {
			sn.mu.Unlock()
			continue
		}
		actx, cancel := context.WithCancel(ctx)
		sn.cancel = cancel
		sn.mu.Unlock()

		results := sn.s.analyze(actx)
		cancel()

		sn.mu.Lock()
		stale := sn.version != v
		if !stale {
			sn.current = &snapshot{version: v, results: results}
			sn.cond.Broadcast()
		}
		sn.mu.Unlock()
		if !stale {
			sn.s.publishDiagnostics(results)
		}
	}
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

// analyze runs every system over the workspace as it is now.
func (s *Server) analyze(ctx context.Context) []*analysis.Result {
	s.mu.Lock()
	in := analysis.Input{Ctx: ctx, Workspace: s.ws, Settings: cloneSettings(s.settings)}
	if s.discovered == nil || s.rediscover {
		s.mu.Unlock()
		d := analysis.Discover(s.systems, in)
		s.mu.Lock()
		s.discovered, s.rediscover = d, false
	}
	discovered := s.discovered
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
	files := analysis.Load(s.systems, in, extra)
	return analysis.AnalyzeFiles(s.systems, in, files)
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
