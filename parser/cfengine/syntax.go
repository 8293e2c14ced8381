package cfengine

// BundleTypes are the bundle types cf-promises knows (CF_AGENTTYPES plus
// the removed knowledge bundles).
var BundleTypes = map[string]bool{
	"common": true, "agent": true, "server": true, "monitor": true, "executor": true,
	"runagent": true, "keygenerator": true, "hub": true, "edit_line": true, "edit_xml": true,
	"knowledge": true, "watch": true,
}

// typesByBundle lists the built-in promise types allowed in each bundle
// type, in their normal evaluation order (libpromises/mod_*.c,
// cf-agent's AGENT_TYPESEQUENCE, cf-serverd, cf-monitord, files_edit*).
// "common" types (meta vars defaults classes reports) are allowed
// everywhere.
var typesByBundle = map[string][]string{
	"agent": {"meta", "vars", "defaults", "classes", "users", "files", "packages",
		"guest_environments", "methods", "processes", "services", "commands", "storage",
		"databases", "reports"},
	"common":    {"meta", "vars", "defaults", "classes", "reports"},
	"edit_line": {"meta", "vars", "defaults", "classes", "delete_lines", "field_edits", "insert_lines", "replace_patterns", "reports"},
	"edit_xml": {"meta", "vars", "defaults", "classes", "build_xpath", "delete_tree", "insert_tree", "delete_attribute",
		"set_attribute", "delete_text", "set_text", "insert_text", "reports"},
	"server":  {"meta", "vars", "defaults", "classes", "roles", "access", "reports"},
	"monitor": {"meta", "vars", "defaults", "classes", "measurements", "reports"},
	// cf-watchd (libpromises/mod_watch.c): events with a when body and a
	// then bundle.
	"watch": {"meta", "vars", "defaults", "classes", "events", "reports"},
}

// BuiltinPromiseTypes are every promise type name built into CFEngine
// (any bundle type); other names are custom promise types.
var BuiltinPromiseTypes = map[string]bool{
	"outputs": true, "inferences": true, "things": true, "topics": true, "occurrences": true, "events": true,
}

func init() {
	for _, ts := range typesByBundle {
		for _, t := range ts {
			BuiltinPromiseTypes[t] = true
		}
	}
}

// NormalOrder returns the promise types of a bundle type in normal order
// (nil for bundle types that have none).
func NormalOrder(bundleType string) []string { return typesByBundle[bundleType] }

// TypeAllowed reports whether a built-in promise type may appear in a
// bundle of the given type. Unknown bundle types allow the common types.
func TypeAllowed(bundleType, promiseType string) bool {
	ts, ok := typesByBundle[bundleType]
	if !ok {
		ts = typesByBundle["common"]
	}
	for _, t := range ts {
		if t == promiseType {
			return true
		}
	}
	return false
}
