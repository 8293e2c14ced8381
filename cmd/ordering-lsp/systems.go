package main

import (
	"github.com/ordering-lsp/ordering-lsp/analysis"
	cfengine "github.com/ordering-lsp/ordering-lsp/analysis/cfengine"
	"github.com/ordering-lsp/ordering-lsp/analysis/chef"
	"github.com/ordering-lsp/ordering-lsp/analysis/puppet"
	"github.com/ordering-lsp/ordering-lsp/analysis/rudder"
	"github.com/ordering-lsp/ordering-lsp/analysis/salt"
)

// systems lists the supported configuration-management systems, one
// constructor each. Adding a system is one line here; nothing else in the
// command line or the server changes.
var systems = []func() analysis.System{
	puppet.New,
	cfengine.New,
	rudder.New,
	chef.New,
	salt.New,
}
