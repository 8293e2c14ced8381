module github.com/ordering-lsp/ordering-lsp

go 1.26.8

require (
	github.com/alecthomas/participle/v2 v2.1.4
	go.lsp.dev/jsonrpc2 v1.0.1
	go.lsp.dev/protocol v1.0.1
	go.lsp.dev/uri v1.0.1
	golang.org/x/tools v0.52.0
	gopkg.in/yaml.v3 v3.0.1
)

require github.com/go-json-experiment/json v0.0.0-20260623181947-01eb4420fa68 // indirect
