package puppet

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/source"
)

// Facts nobody lists. Facter sets a top-scope variable for every fact a
// node has: the core facts (the facts table), those of each network
// interface and disk (ipaddress_eth1, blockdevice_sda_size), the custom
// facts of the modules in the module path (lib/facter/*.rb) and their
// external facts (facts.d/*), plus what an ENC gives as parameters.
// Their values are the node's: unknown here, never undef (Puppet's value
// of a variable nobody sets). A control repository's `include
// "role::${::role}"` with a role fact in site/base/lib/facter/role.rb
// names a role class, not the class ::role::.

var (
	// Facter.add(:role), Facter.add('role'), Facter.add("role")
	factAddRe = regexp.MustCompile(`Facter\.add\(\s*(?::|["'])([A-Za-z0-9_]+)`)
	// facts of each interface, disk, processor and of some platforms
	dynamicFactRe = regexp.MustCompile(`^(?:(?:ipaddress6?|macaddress|netmask6?|network6?|mtu|scope6|dhcp_servers)_\w+|blockdevice_\w+|processor\d+|sp_\w+|ec2_\w+|gce_\w+|zone_\w+|ldom_\w+|ssh\w*key\w*|sshfp_\w+)$`)
	// a line of a .txt external fact: key=value
	txtFactRe = regexp.MustCompile(`(?m)^\s*([A-Za-z0-9_]+)\s*=`)
	// a top-level key of a .yaml external fact
	yamlFactRe = regexp.MustCompile(`(?m)^([A-Za-z0-9_]+)\s*:`)
)

// nodeFact says whether the top-scope variable name is one of a node's
// facts this analysis cannot know the value of.
func (a *analyzer) nodeFact(name string) bool {
	return facts[name] || dynamicFactRe.MatchString(name) || a.world != nil && a.world.customFacts[name]
}

// readCustomFacts reads the names of the custom and external facts the
// modules of the module path ship.
func (w *moduleWorld) readCustomFacts(ws *source.Workspace, mods []string) {
	names := map[string]bool{}
	for _, mod := range mods {
		for _, p := range dirFiles(filepath.Join(mod, "lib", "facter"), ".rb") {
			if f := ws.Lookup(p); f != nil {
				for _, m := range factAddRe.FindAllSubmatch(f.Text, -1) {
					names[string(m[1])] = true
				}
			}
		}
		for _, p := range dirFiles(filepath.Join(mod, "facts.d"), "") {
			f := ws.Lookup(p)
			if f == nil {
				continue
			}
			switch filepath.Ext(p) {
			case ".txt":
				for _, m := range txtFactRe.FindAllSubmatch(f.Text, -1) {
					names[string(m[1])] = true
				}
			case ".yaml", ".yml":
				for _, m := range yamlFactRe.FindAllSubmatch(f.Text, -1) {
					names[string(m[1])] = true
				}
			case ".json":
				var top map[string]json.RawMessage
				if json.Unmarshal(f.Text, &top) == nil {
					for k := range top {
						names[k] = true
					}
				}
			}
		}
	}
	if len(names) == 0 {
		return
	}
	w.customFacts = names
	list := make([]string, 0, len(names))
	for n := range names {
		list = append(list, n)
	}
	slices.Sort(list)
	w.key += fmt.Sprintf("facts=%s\x00", strings.Join(list, ","))
}

// dirFiles lists the files of dir whose name ends in ext ("": any).
func dirFiles(dir, ext string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ext) {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}
