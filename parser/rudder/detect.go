package rudder

import (
	"bytes"
	"path/filepath"
	"strings"
)

// Detect says which importer reads the file at path, from its name and the
// first bytes of its content: "json" (API responses, archives, one file
// holding rules, directives and techniques), "metadata.xml",
// "technique.yml", or "" when the file is not Rudder's.
func Detect(path string, head []byte) string {
	base := strings.ToLower(filepath.Base(path))
	switch {
	case base == "metadata.xml":
		if bytes.Contains(head, []byte("<TECHNIQUE")) {
			return "metadata.xml"
		}
	case base == "technique.yml" || base == "technique.yaml":
		if bytes.Contains(head, []byte("id:")) && (bytes.Contains(head, []byte("items:")) || bytes.Contains(head, []byte("version:"))) {
			return "technique.yml"
		}
	case strings.HasSuffix(base, ".xml"):
		if LooksLikeRepoXML(head) {
			return "repository-xml"
		}
	case strings.HasSuffix(base, ".json"):
		if LooksLikeJSON(head) {
			return "json"
		}
	}
	return ""
}

// LooksLikeJSON is the content test for JSON files: Rudder's words near
// the start ("techniqueName"; "rules"/"directives"/"techniques" next to
// "displayName" or an API envelope; an exported editor technique). ESLint's "rules" alone is not enough.
func LooksLikeJSON(head []byte) bool {
	h := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(h) == 0 || (h[0] != '{' && h[0] != '[') {
		return false
	}
	has := func(s string) bool { return bytes.Contains(head, []byte(s)) }
	// (a directive has its technique's version and a display name too: a
	// MITRE ATT&CK list of {"techniqueId", "techniqueName"} is no Rudder)
	if has(`"techniqueName"`) && (has(`"techniqueVersion"`) || has(`"displayName"`)) {
		return true
	}
	// An exported editor technique {"data": {...}, "type": "ncf_technique"}:
	// rudder-synchronize sorts keys, so a long technique pushes "type" past
	// the head, but then its data opens with bundle_args and bundle_name.
	if has(`"data"`) && (has(`"ncf_technique"`) || (has(`"bundle_name"`) && has(`"bundle_args"`))) {
		return true
	}
	list := has(`"rules"`) || has(`"directives"`) || has(`"techniques"`)
	return list && (has(`"displayName"`) || has(`"action"`) || has(`"techniqueVersion"`) || has(`"versions"`))
}

// LooksLikeRepoXML recognises the XML of a Rudder server's configuration
// repository: <rule fileFormat=...>, <directive fileFormat=...>,
// <nodeGroup fileFormat=...>.
func LooksLikeRepoXML(head []byte) bool {
	for _, tag := range []string{"<rule", "<directive", "<nodeGroup"} {
		if i := bytes.Index(head, []byte(tag)); i >= 0 {
			rest := head[i+len(tag):]
			if j := bytes.IndexByte(rest, '>'); j >= 0 && bytes.Contains(rest[:j], []byte("fileFormat")) {
				return true
			}
		}
	}
	return false
}

// Import reads a file with the importer Detect chose (kind), defaulting to
// detection from the content when kind is "".
func Import(path string, text []byte, kind string) *File {
	if kind == "" {
		kind = Detect(path, text[:min(len(text), 4096)])
		if kind == "" {
			switch strings.ToLower(filepath.Ext(path)) {
			case ".xml":
				kind = "metadata.xml"
			case ".yml", ".yaml":
				kind = "technique.yml"
			default:
				kind = "json"
			}
		}
	}
	switch kind {
	case "metadata.xml":
		return ImportMetadataXML(path, text)
	case "technique.yml":
		return ImportTechniqueYAML(path, text)
	case "repository-xml":
		return ImportRepoXML(text)
	}
	f := ImportJSON(text)
	if isArchivePath(path) {
		f.Format = "archive-json"
	}
	return f
}

func isArchivePath(p string) bool {
	p = filepath.ToSlash(p)
	return strings.Contains(p, "/rules/") || strings.Contains(p, "/directives/") || strings.Contains(p, "/groups/")
}
