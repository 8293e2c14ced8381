package lsp

import (
	"sync"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/internal/filecache"
)

// cacheDirAtStart is the chunk cache's directory as the program set it
// before the server started ("" when nothing is kept on disk: tests).
var cacheDirAtStart = sync.OnceValue(func() string { return filecache.Shared().DiskDir() })

// applyCacheSetting follows `cache.enabled` (default true): false keeps
// parsed chunks in memory only, nothing in the cache directory. The
// setting can only turn off what the program turned on.
func applyCacheSetting(st analysis.Settings) {
	dir := cacheDirAtStart()
	if !st.Bool("cache.enabled", true) {
		dir = ""
	}
	if filecache.Shared().DiskDir() != dir {
		filecache.Shared().SetDir(dir)
	}
}
