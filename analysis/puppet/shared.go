package puppet

import (
	"fmt"
	"path/filepath"
	"sync"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// memo holds what one Analyze call learns about the disk and the data
// files: answers that cannot change during the call, asked again by
// every run (a workspace of a thousand runs asked the same stat calls a
// thousand times). Runs evaluated on several goroutines share it, hence
// the lock. Values are pure functions of the workspace, so which run
// asks first never changes an answer.
type memo struct {
	mu              sync.Mutex
	rubyTypes       map[string]bool
	rubyTypeFiles   map[string]bool // (rubyTypeFiles: nil until first asked)
	hieraCache      map[string][]string
	hieraIncomplete map[string]bool
	dataCache       map[string]map[string]any
	contentIDs      map[string]string
	noAutoload      map[string]bool   // names whose autoload paths hold no file to load
	modRoots        map[string]string // module name -> root ("" none)
	modDirs         map[string]bool   // module name -> some modulepath dir has <mod>/manifests
	offPath         map[string]string // module name -> a workspace folder holding it off the module path ("" none; offPathModule)
	envDone         bool
	envDirs         []string // workspace roots that are environments (hiera data)
	envCertain      bool     // every environment has its own hiera.yaml
	condFacts       map[string][]analysis.Fact
	families        map[string][]string   // class-name pattern -> the classes it matches
	dataItems       map[string][]dataItem // Hiera data file + key -> the list it holds, with positions
	// wheres: `file:line` of a position (where, as a template), asked for the same
	// relationships by every run that evaluates them (hover lines of
	// refreshed resources); one string per place for the whole analysis.
	wheres sync.Map // whereKey -> string
	defs   *defMemo // recorded define bodies (defmemo.go), made when first needed
	// lineFiles: the file line() numbers a URI's positions in. Found
	// once: the workspace's lookup asks the disk each time (os.Stat), and
	// line() writes out every "refreshed by" hover line of every run.
	lineFiles map[string]*source.File
}

type whereKey struct {
	uri   string
	start int
}

func newMemo() *memo {
	return &memo{
		rubyTypes: map[string]bool{}, hieraCache: map[string][]string{}, hieraIncomplete: map[string]bool{},
		dataCache: map[string]map[string]any{}, contentIDs: map[string]string{}, noAutoload: map[string]bool{},
		modRoots: map[string]string{}, modDirs: map[string]bool{}, offPath: map[string]string{}, condFacts: map[string][]analysis.Fact{},
		families: map[string][]string{}, dataItems: map[string][]dataItem{},
	}
}

// conditionFact is the hover line of a resource declared under an
// undecided condition. The same few conditions hold thousands of
// resources in every run that evaluates them (54 MB of copies of these
// lines on operations-puppet), so each text is made once per analysis; the
// slice is full (len = cap): a node that adds a fact reallocates it.
func (a *analyzer) conditionFact(what string) []analysis.Fact {
	m := a.memo
	m.mu.Lock()
	defer m.mu.Unlock()
	fs, ok := m.condFacts[what]
	if !ok {
		how := "set puppet.facts to decide"
		if a.unpicked > 0 {
			how = fmt.Sprintf("choose one of the %d fact sets' nodes to decide: ordering.node, the status bar's Node item", a.unpicked)
		}
		fs = []analysis.Fact{{Label: "condition", Value: "declared only when " + what + ", which depends on facts or data we do not know: Puppet may not declare it (" + how + ")", Condition: what}}
		m.condFacts[what] = fs
	}
	return fs
}

// envRoots lists the workspace roots whose hiera data applies to every
// lookup, and whether a miss there is certain.
func (a *analyzer) envRoots() ([]string, bool) {
	m := a.memo
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.envDone {
		m.envDone, m.envCertain = true, true
		for _, r := range a.roots {
			if !isModuleRoot(a.ws, r) {
				m.envDirs = append(m.envDirs, r)
				if !a.strict && !envHieraV5(a.ws, r) {
					// The environment's data comes from a global hiera.yaml we
					// cannot see (the server's): a miss proves nothing. So
					// with a Hiera 3 one at the root, which Puppet 7 ignores
					// there (hieraV3).
					m.envCertain = false
				}
			}
		}
		if !a.strict && len(m.envDirs) == 0 {
			// Only modules (or a control repo that looks like one): the
			// environment's data is somewhere we cannot see, so a key
			// nobody here sets is unknown, not its default.
			m.envCertain = false
		}
	}
	return m.envDirs, m.envCertain
}

// moduleRoot finds the folder of a module by name.
func (a *analyzer) moduleRoot(mod string) string {
	if r, ok := a.rootMods[mod]; ok {
		return r
	}
	m := a.memo
	m.mu.Lock()
	r, ok := m.modRoots[mod]
	m.mu.Unlock()
	if ok {
		return r
	}
	r = ""
	for _, d := range a.modpath {
		if a.ws.IsDir(filepath.Join(d, mod, "manifests")) {
			r = filepath.Join(d, mod)
			break
		}
	}
	m.mu.Lock()
	m.modRoots[mod] = r
	m.mu.Unlock()
	return r
}

// modDirKnown: some module directory holds <mod>/manifests.
func (a *analyzer) modDirKnown(mod string) bool {
	m := a.memo
	m.mu.Lock()
	v, ok := m.modDirs[mod]
	m.mu.Unlock()
	if ok {
		return v
	}
	v = false
	for _, d := range a.modpath {
		if a.ws.IsDir(filepath.Join(d, mod, "manifests")) {
			v = true
			break
		}
	}
	m.mu.Lock()
	m.modDirs[mod] = v
	m.mu.Unlock()
	return v
}

// line is the 1-based line of a span's start. source.File computes its
// line table lazily: the lock keeps goroutines from racing on it.
func (a *analyzer) line(sp source.Span) int {
	m := a.memo
	m.mu.Lock()
	f, ok := m.lineFiles[sp.URI]
	m.mu.Unlock()
	if !ok {
		f = analysis.FileOf(a.ws, sp.URI)
		m.mu.Lock()
		if m.lineFiles == nil {
			m.lineFiles = map[string]*source.File{}
		}
		if g, ok := m.lineFiles[sp.URI]; ok {
			f = g // another fork's answer came first: one file for the analysis
		} else {
			m.lineFiles[sp.URI] = f
		}
		m.mu.Unlock()
	}
	if f == nil {
		return 0
	}
	m.mu.Lock()
	l, _ := f.Line1Col1(sp.Start)
	m.mu.Unlock()
	return l
}

// envHieraV5 says whether the environment at r has a hiera.yaml Puppet 7
// reads there (version 5; a Hiera 3 one is ignored at the root).
func envHieraV5(ws *source.Workspace, r string) bool {
	f := ws.Lookup(filepath.Join(r, "hiera.yaml"))
	if f == nil {
		return false
	}
	_, _, v3 := hieraV3(f.Text)
	return !v3
}
