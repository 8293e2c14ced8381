package puppet

import (
	"fmt"
	"strings"

	"github.com/ordering-lsp/ordering-lsp/analysis"
	"github.com/ordering-lsp/ordering-lsp/source"
)

// unknownType is Puppet's "Unknown resource type" for a type that no
// define, built-in type or module's lib/puppet/type/ defines: the compile
// stops there (puppet-order: "Evaluation Error: Error while evaluating a
// Resource Statement, Unknown resource type: 'fiel'"). An entry's run
// knows its world is whole. A workspace's is graded as a missing class
// is: a define under a module the workspace holds is surely missing; a
// plain name (a Ruby type) is a typo when every module the repository
// declares is installed; else a module outside the workspace may define
// it, which the hint says (masumndc1/puppet-infra's vcsrepo, whose
// module its Puppetfile does not declare, went unreported).
//
// It says whether the compile stops there for certain (an entry's run:
// nothing after it is declared).
func (r *run) unknownType(e *env, name string, at source.Span) bool {
	msg := fmt.Sprintf("Unknown resource type: '%s'", name)
	if r.strict {
		r.diag(at, analysis.Error, "unknown-type", msg)
		return true
	}
	if fi := r.a.brokenAutoload(name); fi != nil {
		// Puppet stops at the file it loads the define from, with that
		// file's syntax error (puppet apply --modulepath: "Illegal number
		// '1g'" for aequitas/puppet-sites' sites::vhosts::vhost), as for
		// a class (classMissing)
		msg += fmt.Sprintf(": %s, where Puppet loads it from, has a syntax error", r.a.displayPath(fi.uri))
		sev := analysis.Error
		if e.spec {
			sev = analysis.Warning
			msg += " (" + r.specWhen(e) + ")"
		}
		r.diag(at, sev, "unknown-type", msg)
		return false
	}
	sev, why, rel, code := r.a.typeAbsent(name)
	if cand, d := r.relativeDefine(e, name); d != nil {
		// Puppet 3 found users::localuser from `localuser { }` in class
		// users::build; Puppet 4 and later look every name up from the top
		// (jonyesno/puppet-config). Only the words change: a module
		// outside the workspace may still define a type of that name.
		why = fmt.Sprintf("did you mean '%s'? Puppet 4 and later resolve no name relative to the enclosing class; ", cand) + why
		rel = append(rel, analysis.Related{At: r.a.span(d.file, d.def.NameLoc), Message: "define " + cand + " is here"})
	}
	if e.spec && sev != analysis.Hint {
		if why != "" {
			why += "; "
		}
		why += r.specWhen(e)
		sev = analysis.Warning
	}
	if why != "" {
		msg += " (" + why + ")"
	}
	// The run goes on as before: the resource is declared (references to
	// it hold where the type exists), and the run is not marked absent
	// (a Ruby type declares nothing else; an absent module's define may,
	// which the references to what it declares already allow for).
	r.diag(at, sev, code, msg, rel...)
	return false
}

// relativeDefine is the define a plain type name named in Puppet 3,
// which looked it up in the namespaces of the class or define around it,
// innermost first: `localuser` in users::build was users::localuser.
func (r *run) relativeDefine(e *env, name string) (string, *defineInfo) {
	if strings.Contains(name, "::") || e.sc == nil {
		return "", nil
	}
	ns, self := e.sc.name, ""
	if ns == "" && e.sc.owner != nil && e.sc.owner.define != nil {
		ns = e.sc.owner.define.name
		self = ns
	}
	for ns != "" {
		cand := ns + "::" + name
		// (a define's own name is no suggestion: `domain { }` in
		// profiles::glassfish::domain meant a module's Ruby type)
		if d := r.a.defineFor(r, cand); d != nil && cand != self {
			return cand, d
		}
		i := strings.LastIndex(ns, "::")
		if i < 0 {
			break
		}
		ns = ns[:i]
	}
	return "", nil
}

// typeAbsent grades a type nothing defines by what the workspace knows
// of the modules outside it (absentModule for a define's module), with
// the code of a hint that installing the Puppetfile's modules answers.
func (a *analyzer) typeAbsent(name string) (analysis.Severity, string, []analysis.Related, string) {
	if mod, _, ok := strings.Cut(name, "::"); ok {
		if a.moduleKnown(name) {
			return analysis.Error, "", nil, "unknown-type"
		}
		sev, why, rel := a.absentModule(mod)
		code := "unknown-type"
		if a.notInstalled(mod) {
			code = codeNotInstalled
		}
		return sev, why, rel, code
	}
	if m, ok := moduleTypes[name]; ok && !a.moduleKnown(m.name) {
		return a.moduleTypeAbsent(name, m)
	}
	sev, why, uninstalled := a.rubyTypeAbsent(name)
	if near := nearestType(name); near != "" {
		why = fmt.Sprintf("did you mean '%s'? ", near) + why
	}
	code := "unknown-type"
	if uninstalled {
		code = codeNotInstalled
	}
	return sev, why, nil, code
}

// rubyTypeAbsent grades a plain type name: modules define those in Ruby
// (lib/puppet/type/NAME.rb), any module. uninstalled: the Puppetfile's
// modules, once installed, will say.
func (a *analyzer) rubyTypeAbsent(name string) (sev analysis.Severity, why string, uninstalled bool) {
	w := a.world
	switch {
	case enterpriseModule(name) && (w == nil || w.basemodulepath || !w.modulepathSet):
		return analysis.Hint, "no module of the workspace defines it; Puppet Enterprise installs its own modules (pe_*, puppet_enterprise) with their types in /opt/puppetlabs/puppet/modules, which the modulepath reads through $basemodulepath: add that folder to the module path (puppet.modulepath) to analyse it", false
	case w == nil || w.puppetfile == "":
		return analysis.Hint, "no module of the workspace defines it in lib/puppet/type/" + name + ".rb, and modules outside it may: add the folder that holds them to the module path (puppet.modulepath) to analyse them", false
	case w.uninstalled(a):
		return analysis.Hint, fmt.Sprintf("no installed module defines it; a module %s declares but the module path does not hold may: `r10k puppetfile install` or `g10k -puppetfile` installs them", a.displayPath(source.PathToURI(w.puppetfile))), true
	}
	for _, d := range w.external {
		if !a.ws.IsDir(d) {
			return analysis.Hint, fmt.Sprintf("no module of the workspace defines it; the modulepath of environment.conf also reads %s, which it does not hold", d), false
		}
	}
	return analysis.Error, fmt.Sprintf("no built-in type, and no module of the module path, all that %s declares, defines it", a.displayPath(source.PathToURI(w.puppetfile))), false
}

// nearestType is the built-in type one or two edits from name ("fiel":
// file), if there is one.
func nearestType(name string) string {
	best, bestD := "", 3
	for t := range builtinTypes {
		if t == "whit" || t == "component" {
			continue
		}
		if d := analysis.EditDistance(name, t); d < bestD || d == bestD && d < 3 && t < best {
			best, bestD = t, d
		}
	}
	if bestD > 2 {
		return ""
	}
	return best
}

// forgeModule is a Forge module by its full and its short name.
type forgeModule struct{ full, name string }

// moduleTypes are the Ruby types of the Forge modules nearly every
// repository uses, by the module that ships them in lib/puppet/type/:
// for one of these the hint names the module to install (Trintu's
// control-repo uses file_line and its Puppetfile forgets stdlib), as a
// class of an absent module's does, where any module might have defined
// another plain name.
var moduleTypes = map[string]forgeModule{
	"anchor":          {"puppetlabs-stdlib", "stdlib"},
	"file_line":       {"puppetlabs-stdlib", "stdlib"},
	"concat_file":     {"puppetlabs-concat", "concat"},
	"concat_fragment": {"puppetlabs-concat", "concat"},
	"ini_setting":     {"puppetlabs-inifile", "inifile"},
	"ini_subsetting":  {"puppetlabs-inifile", "inifile"},
	"vcsrepo":         {"puppetlabs-vcsrepo", "vcsrepo"},
	"registry_key":    {"puppetlabs-registry", "registry"},
	"registry_value":  {"puppetlabs-registry", "registry"},
	"acl":             {"puppetlabs-acl", "acl"},
	"archive":         {"puppet-archive", "archive"},
	"firewall":        {"puppetlabs-firewall", "firewall"},
	"firewallchain":   {"puppetlabs-firewall", "firewall"},
	"windows_env":     {"puppet-windows_env", "windows_env"},
	// (the types Puppet 6 moved out of its core into modules that
	// puppet-agent does not bundle)
	"mailalias":        {"puppetlabs-mailalias_core", "mailalias_core"},
	"maillist":         {"puppetlabs-maillist_core", "maillist_core"},
	"k5login":          {"puppetlabs-k5login_core", "k5login_core"},
	"computer":         {"puppetlabs-macdslocal_core", "macdslocal_core"},
	"macauthorization": {"puppetlabs-macdslocal_core", "macdslocal_core"},
	"mcx":              {"puppetlabs-macdslocal_core", "macdslocal_core"},
}

func init() {
	for _, t := range []string{"command", "contact", "contactgroup", "host", "hostdependency", "hostescalation",
		"hostextinfo", "hostgroup", "service", "servicedependency", "serviceescalation", "serviceextinfo",
		"servicegroup", "timeperiod"} {
		moduleTypes["nagios_"+t] = forgeModule{"puppetlabs-nagios_core", "nagios_core"}
	}
}

// moduleTypeAbsent grades a type of a known module the workspace does not
// hold as a class of that module is graded (absentModule: declared but
// not installed, declared nowhere while a Puppetfile lists the modules,
// or outside the workspace), saying which module defines it and how to
// make it known.
func (a *analyzer) moduleTypeAbsent(name string, m forgeModule) (analysis.Severity, string, []analysis.Related, string) {
	sev, why, rel := a.absentModule(m.name)
	why = fmt.Sprintf("%s defines it in lib/puppet/type/%s.rb; ", m.full, name) + why
	switch {
	case a.notInstalled(m.name):
		return sev, why, rel, codeNotInstalled
	case sev == analysis.Error:
		why += fmt.Sprintf(": add `mod '%s'` to it", m.full)
	case len(rel) == 0 && strings.HasSuffix(why, "is not in the workspace"):
		why += fmt.Sprintf(": declare it in a Puppetfile (`mod '%s'`) and install it, or add the folder that holds it to the module path (puppet.modulepath)", m.full)
	}
	return sev, why, rel, "unknown-type"
}
