package main

import (
	"path/filepath"
	"sort"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// SARIF 2.1.0, the subset GitHub code scanning reads. Columns are UTF-16
// code units, SARIF's default columnKind.

type sarifRoot struct {
	Version string     `json:"version"`
	Schema  string     `json:"$schema"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID               string       `json:"id"`
	ShortDescription sarifMessage `json:"shortDescription"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID           string          `json:"ruleId"`
	Level            string          `json:"level"`
	Message          sarifMessage    `json:"message"`
	Locations        []sarifLocation `json:"locations"`
	RelatedLocations []sarifLocation `json:"relatedLocations,omitempty"`
	// Properties carry the nodes a problem occurs on (check over fact
	// sets or minions): SARIF's property bag, as {"nodes": [...]}.
	Properties *sarifProps `json:"properties,omitempty"`
}

type sarifProps struct {
	Nodes []string `json:"nodes,omitempty"`
}

type sarifLocation struct {
	ID               int           `json:"id,omitempty"`
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
	Message          *sarifMessage `json:"message,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           sarifRegion   `json:"region"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn"`
	EndLine     int `json:"endLine"`
	EndColumn   int `json:"endColumn"`
}

func sarifLog(ws *source.Workspace, base string, diags []analysis.Diagnostic) sarifRoot {
	rules := map[string]string{}
	results := []sarifResult{}
	for _, d := range diags {
		id := d.Source + "/" + d.Code
		if d.Code == "" {
			id = d.Source + "/problem"
		}
		if _, ok := rules[id]; !ok {
			rules[id] = d.Message
		}
		r := sarifResult{RuleID: id, Level: sarifLevel(d.Severity), Message: sarifMessage{Text: d.Message},
			Locations: []sarifLocation{sarifLoc(ws, base, d.At, "")}}
		if len(d.Nodes) > 0 {
			r.Properties = &sarifProps{Nodes: d.Nodes}
		}
		for i, rel := range d.Related {
			l := sarifLoc(ws, base, rel.At, rel.Message)
			l.ID = i + 1
			r.RelatedLocations = append(r.RelatedLocations, l)
		}
		results = append(results, r)
	}
	ids := make([]string, 0, len(rules))
	for id := range rules {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	driver := sarifDriver{Name: "ordering-lsp", Version: version, InformationURI: "https://github.com/ordering-lsp/ordering-lsp", Rules: []sarifRule{}}
	for _, id := range ids {
		driver.Rules = append(driver.Rules, sarifRule{ID: id, ShortDescription: sarifMessage{Text: id}})
	}
	return sarifRoot{
		Version: "2.1.0",
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Runs:    []sarifRun{{Tool: sarifTool{Driver: driver}, Results: results}},
	}
}

func sarifLevel(s analysis.Severity) string {
	switch s {
	case analysis.Error:
		return "error"
	case analysis.Warning:
		return "warning"
	}
	return "note"
}

func sarifLoc(ws *source.Workspace, base string, sp source.Span, msg string) sarifLocation {
	loc := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: filepath.ToSlash(displayPath(base, sp.URI))}}}
	if f := analysis.FileOf(ws, sp.URI); f != nil {
		a := f.Position(sp.Start, source.UTF16)
		b := f.Position(max(sp.End, sp.Start), source.UTF16)
		loc.PhysicalLocation.Region = sarifRegion{StartLine: a.Line + 1, StartColumn: a.Col + 1, EndLine: b.Line + 1, EndColumn: b.Col + 1}
	}
	if msg != "" {
		loc.Message = &sarifMessage{Text: msg}
	}
	return loc
}
