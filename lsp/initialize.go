package lsp

import (
	"context"
	"encoding/json"

	"go.lsp.dev/protocol"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

func init() {
	register("initialize", method{call: (*Server).initialize})
	register("initialized", method{notify: func(s *Server, ctx context.Context, _ json.RawMessage) error {
		s.touchAll() // first analysis of the whole workspace
		s.watchWorkspace()
		return nil
	}})
}

// initialize negotiates the position encoding (UTF-8 when the client
// offers it: no conversion cost; UTF-16 otherwise, as LSP requires), takes
// the workspace folders, and reads settings from initializationOptions.
func (s *Server) initialize(ctx context.Context, raw json.RawMessage) (any, error) {
	var p protocol.InitializeParams
	if err := decode(raw, &p); err != nil {
		return nil, err
	}
	enc := source.UTF16
	kind := protocol.PositionEncodingKind("utf-16")
	if g := p.Capabilities.General; g != nil {
		for _, k := range g.PositionEncodings {
			if k == "utf-8" {
				enc, kind = source.UTF8, "utf-8"
				break
			}
		}
	}
	var roots []string
	if folders, ok := p.WorkspaceFolders.Get(); ok {
		for _, f := range folders {
			if path := source.URIToPath(string(f.URI)); path != "" {
				roots = append(roots, path)
			}
		}
	}
	if len(roots) == 0 && p.RootURI != nil {
		if path := source.URIToPath(string(*p.RootURI)); path != "" {
			roots = append(roots, path)
		}
	}
	settings := analysis.Settings{}
	if len(p.InitializationOptions) > 0 {
		settings = settingsFromJSON(p.InitializationOptions)
	}
	inlayRefresh := false
	if w := p.Capabilities.Workspace; w != nil && w.InlayHint != nil {
		inlayRefresh = w.InlayHint.RefreshSupport != nil && *w.InlayHint.RefreshSupport
	}

	// Capabilities the protocol package does not decode in every version.
	var more struct {
		Capabilities struct {
			TextDocument struct {
				CodeAction struct {
					ResolveSupport struct {
						Properties []string `json:"properties"`
					} `json:"resolveSupport"`
				} `json:"codeAction"`
			} `json:"textDocument"`
			Workspace struct {
				WorkspaceEdit struct {
					ChangeAnnotationSupport *json.RawMessage `json:"changeAnnotationSupport"`
				} `json:"workspaceEdit"`
				DidChangeWatchedFiles struct {
					DynamicRegistration bool `json:"dynamicRegistration"`
				} `json:"didChangeWatchedFiles"`
			} `json:"workspace"`
		} `json:"capabilities"`
	}
	_ = json.Unmarshal(raw, &more)
	actionResolve := false
	for _, prop := range more.Capabilities.TextDocument.CodeAction.ResolveSupport.Properties {
		actionResolve = actionResolve || prop == "edit"
	}

	s.mu.Lock()
	s.actionResolve = actionResolve
	s.changeAnnotations = more.Capabilities.Workspace.WorkspaceEdit.ChangeAnnotationSupport != nil
	s.watchFiles = more.Capabilities.Workspace.DidChangeWatchedFiles.DynamicRegistration
	s.encoding = enc
	s.ws = source.NewWorkspace(roots...)
	s.settings = settings
	applyCacheSetting(settings)
	s.initialized = true
	s.inlayRefresh = inlayRefresh
	if w := p.Capabilities.Workspace; w != nil && w.CodeLens != nil {
		s.lensRefresh = w.CodeLens.RefreshSupport != nil && *w.CodeLens.RefreshSupport
	}
	if w := p.Capabilities.Window; w != nil && w.WorkDoneProgress != nil {
		s.workDoneProgress = *w.WorkDoneProgress
	}
	s.mu.Unlock()

	yes := true
	change := protocol.TextDocumentSyncKindIncremental
	sync := &protocol.TextDocumentSyncOptions{
		OpenClose: &yes,
		Change:    &change,
		Save:      protocol.Boolean(true),
	}
	res := &protocol.InitializeResult{
		Capabilities: protocol.ServerCapabilities{
			PositionEncoding:       kind,
			TextDocumentSync:       sync,
			HoverProvider:          protocol.Boolean(true),
			DefinitionProvider:     protocol.Boolean(true),
			ReferencesProvider:     protocol.Boolean(true),
			DocumentSymbolProvider: protocol.Boolean(true),
			InlayHintProvider:      protocol.Boolean(true),
			Workspace: &protocol.WorkspaceOptions{
				WorkspaceFolders: &protocol.WorkspaceFoldersServerCapabilities{
					Supported:           &yes,
					ChangeNotifications: protocol.Boolean(true),
				},
			},
		},
		ServerInfo: protocol.ServerInfo{Name: "ordering-lsp", Version: protocol.NewOptional(Version)},
	}
	for _, m := range methods {
		if m.caps != nil {
			m.caps(&res.Capabilities)
		}
	}
	return res, nil
}

// settingsFromJSON flattens {"puppet":{"ordering":"random"}} (or the same
// wrapped in {"ordering": ...}) into dotted keys.
func settingsFromJSON(raw []byte) analysis.Settings {
	var v any
	out := analysis.Settings{}
	if err := json.Unmarshal(raw, &v); err != nil {
		return out
	}
	if m, ok := v.(map[string]any); ok {
		if inner, ok := m["ordering"].(map[string]any); ok {
			v = inner
		}
	}
	analysis.Flatten("", v, out)
	// The node picker's choice is the editor setting ordering.node: its
	// section was cut off above, the analysis key keeps it.
	if n, ok := out["node"]; ok {
		delete(out, "node")
		out[analysis.NodeSetting] = n
	}
	return out
}
