package lsp

import (
	"runtime/debug"
	"time"
)

// releaseAfter: how long the workspace must stay settled (no change since
// its complete analysis landed) before the server gives its free memory
// back to the system.
const releaseAfter = 2 * time.Second

// releaseWhenSettled returns the heap the analysis of version v no longer
// uses to the operating system once nothing has changed for releaseAfter.
// A complete analysis of a big repository peaks near the soft memory
// limit (operations-puppet: 956 MB resident under the default 1 GiB) and keeps
// ~180 MB live after it; Go's scavenger gives the difference back only
// slowly, so a server the user is not typing into sat at its peak for
// minutes. One forced collection per settled analysis (after a pause, so
// never while typing) costs tens of milliseconds of CPU.
func (sn *snapshotter) releaseWhenSettled(v uint64) {
	time.AfterFunc(releaseAfter, func() {
		sn.mu.Lock()
		settled := sn.version == v && sn.current != nil && sn.current.version == v
		sn.mu.Unlock()
		if settled {
			debug.FreeOSMemory()
		}
	})
}
