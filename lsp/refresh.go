package lsp

import (
	"context"
	"sync/atomic"
	"time"
)

// refreshViews asks the client to fetch lenses and inlay hints again
// (workspace/codeLens/refresh, workspace/inlayHint/refresh): they were
// answered from an older or a focused analysis (viewFor) and a newer one
// has landed, or settings changed them. One request of each kind is in
// flight at a time; a refresh asked meanwhile is sent when it returns, so
// a burst of analyses makes at most two.
func (s *Server) refreshViews() {
	s.mu.Lock()
	inlay, lens, conn := s.inlayRefresh, s.lensRefresh, s.conn
	s.mu.Unlock()
	if conn == nil {
		return
	}
	if inlay {
		s.inlayRefresher.ask(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, _ = conn.Call(ctx, "workspace/inlayHint/refresh", nil, nil)
		})
	}
	if lens {
		s.lensRefresher.ask(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, _ = conn.Call(ctx, "workspace/codeLens/refresh", nil, nil)
		})
	}
}

// refresher runs call once per ask, coalescing the asks that come while a
// call is in flight into one more call.
type refresher struct {
	state atomic.Int32 // 0 idle, 1 calling, 2 calling and asked again
}

func (r *refresher) ask(call func()) {
	for {
		switch st := r.state.Load(); st {
		case 0:
			if !r.state.CompareAndSwap(0, 1) {
				continue
			}
			go func() {
				for {
					call()
					if r.state.CompareAndSwap(1, 0) {
						return
					}
					r.state.Store(1) // it was 2: once more
				}
			}()
			return
		case 1:
			if r.state.CompareAndSwap(1, 2) {
				return
			}
		default:
			return
		}
	}
}
