package rudder

// builtinTechnique is what Rudder's standard technique library says of a
// technique, used only when the workspace has no metadata.xml,
// technique.yml or editor technique for it (an API export of rules and
// directives alone). Facts read from the metadata.xml files of
// Normation/rudder-techniques (master and branches/rudder/7.3) and of the
// test configuration repository of Normation/rudder; older versions of a
// technique may differ, which hovers say.
type builtinTechnique struct {
	multi      bool
	generation string
	system     bool
	postAction bool
}

var builtins = map[string]builtinTechnique{
	// multi-instance, one policy per directive
	"packageManagement":        {multi: true, generation: "separated"},
	"repoGpgKeyManagement":     {multi: true, generation: "separated"},
	"ipsPackageRepositories":   {multi: true, generation: "separated"},
	"fileManagement":           {multi: true, generation: "separated"},
	"filesPermissions":         {multi: true, generation: "separated"},
	"checkGenericFileContent":  {multi: true, generation: "separated"},
	"copyGitFile":              {multi: true, generation: "separated"},
	"downloadFile":             {multi: true, generation: "separated"},
	"fileTemplate":             {multi: true, generation: "separated"},
	"manageKeyValueFile":       {multi: true, generation: "separated"},
	"jobScheduler":             {multi: true, generation: "separated"},
	"partitionSizeMonitoring":  {multi: true, generation: "separated"},
	"services":                 {multi: true, generation: "separated"},
	"sshKeyDistribution":       {multi: true, generation: "separated"},
	"fileAlterationMonitoring": {multi: true, generation: "separated"},
	"cronManagement":           {multi: true, generation: "separated"},
	"userCronManagement":       {multi: true, generation: "separated"},
	"groupManagement":          {multi: true, generation: "separated"},
	"sudoParameters":           {multi: true, generation: "separated"},
	"userManagement":           {multi: true, generation: "separated"},
	// multi-instance, directives merged into one policy
	"genericVariableDefinition":        {multi: true, generation: "merged"},
	"genericCommandVariableDefinition": {multi: true, generation: "merged"},
	"servicesManagement":               {multi: true, generation: "merged"},
	"zypperPackageManagerRepositories": {multi: true, generation: "merged"},
	"zmdPackageManagerSettings":        {multi: true, generation: "merged"},
	"rpmPackageInstallation":           {multi: true, generation: "merged"},
	// unique
	"aptPackageManagerSettings": {},
	"zypperPackageManagerSetup": {},
	"snmp":                      {},
	"rudderSNMP":                {},
	"dnsConfiguration":          {},
	"firewall":                  {},
	"hostsConfiguration":        {},
	"sshConfiguration":          {},
	"motdConfiguration":         {},
	"systemUpdate":              {},
	"clockConfiguration":        {},
	// system
	"common":                    {system: true},
	"distributePolicy":          {system: true},
	"server-common":             {system: true},
	"server-roles":              {system: true},
	"rudder-service-apache":     {system: true},
	"rudder-service-postgresql": {system: true},
	"rudder-service-relayd":     {system: true},
	"rudder-service-slapd":      {system: true},
	"rudder-service-webapp":     {system: true},
	"inventory":                 {system: true, postAction: true},
}
