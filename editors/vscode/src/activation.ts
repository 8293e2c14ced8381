// When the extension starts the server. VS Code activates an extension on file *names* only
// (package.json's `workspaceContains:` globs, searched once when a folder opens, .gitignore'd files
// left out) or on a document's language; the server claims files by name and by *content*: a Chef
// policy is any Ruby file outside a cookbook with a run list (`chef install base.rb` at a
// repository's root), a policy lock any JSON with `cookbook_locks`, CFEngine policy a `.cf` file
// with a bundle or body. No glob tells those apart from a Rails app or a Postfix configuration.
//
// So the activation globs below are names where such files live (a repository's root, policyfiles/
// and policies/ folders, `*.lock.json`), never every `*.rb` or `*.json`; and before the server
// starts, activate() reads the first bytes of what a glob found (and of the open documents) with
// the same tests the server applies. A Chef cookbook (metadata.rb at its root), a Rails app using
// Pundit (app/policies/*.rb) or a .NET project (packages.lock.json) activates the extension, which
// then starts nothing and shows nothing until a file the server would analyse appears or opens.
// The tests are supersets of the server's Owns (analysis/<system>): a file they accept that the
// server does not costs an idle server, one they refuse would cost the user every answer.

/** How much of a file the content tests read: the server reads the same 4 KB (analysis.Discover). */
export const HEAD_BYTES = 4096;

export interface Trigger {
  /** a `workspaceContains:` glob (relative to a workspace folder) */
  glob: string;
  /** the content test a match must also pass; none: the name is enough */
  claims?: (head: string) => boolean;
  /** what it finds, for the log */
  what: string;
}

/** A Chef policy (analysis/chef Owns: `run_list` or `include_policy` in it; a root file also needs default_source, which this test does not ask). */
export const chefPolicy = (head: string): boolean => /\b(run_list|include_policy)\b/.test(head);

/** A Policyfile lock (parser/chef LooksLikeLock). */
export const chefLock = (head: string): boolean => head.includes('"cookbook_locks"') || head.includes('"revision_id"');

/** CFEngine policy (analysis/cfengine Owns): empty (a new policy file), a bundle/body/promise header, or a block. */
export const cfenginePolicy = (head: string): boolean => head.trim() === ''
  || /^[ \t]*(bundle|body|promise)[ \t]+[A-Za-z_]\w*[ \t]+[A-Za-z_]/m.test(head)
  || (/(^|[^$])\{/.test(head) && !/\{\{|\{%|<%/.test(head));

/** A Rudder JSON export (parser/rudder LooksLikeJSON, the same words: ESLint's "rules" alone is not one). */
export const rudderJSON = (head: string): boolean => {
  if (!/^[\s\ufeff]*[[{]/.test(head)) return false;
  const has = (w: string) => head.includes(`"${w}"`);
  return (has('techniqueName') && (has('techniqueVersion') || has('displayName')))
    || (has('data') && (has('ncf_technique') || (has('bundle_name') && has('bundle_args'))))
    || ((has('rules') || has('directives') || has('techniques'))
      && (has('displayName') || has('action') || has('techniqueVersion') || has('versions')));
};

/** A Rudder configuration repository's rule or directive (parser/rudder LooksLikeRepoXML). */
export const rudderRepoXML = (head: string): boolean => /<(rule|directive|nodeGroup)\b[^>]*fileFormat/.test(head);

/** A Rudder technique (parser/rudder Detect). */
export const rudderMetadata = (head: string): boolean => head.includes('<TECHNIQUE');
export const rudderTechniqueYAML = (head: string): boolean => /\bid:/.test(head);

/**
 * The activation globs, in the order activate() tries them (names alone first). The unit tests keep
 * package.json's `workspaceContains:` events equal to these.
 */
export const TRIGGERS: readonly Trigger[] = [
  { glob: '**/*.pp', what: 'a Puppet manifest' },
  { glob: '**/*.sls', what: 'a Salt state file' },
  { glob: 'environment.conf', what: "a Puppet environment's configuration" },
  { glob: 'Puppetfile', what: 'a Puppet control repository' },
  { glob: '**/Policyfile.rb', what: 'a Chef Policyfile' },
  { glob: '**/*.cf', claims: cfenginePolicy, what: 'CFEngine policy' },
  { glob: '**/*.cf.in', claims: cfenginePolicy, what: 'a CFEngine policy template' },
  { glob: '*.rb', claims: chefPolicy, what: "a Chef policy at the repository's root" },
  { glob: '**/policyfiles/**/*.rb', claims: chefPolicy, what: 'a Chef policy' },
  { glob: '**/policies/**/*.rb', claims: chefPolicy, what: 'a Chef policy' },
  { glob: '**/*.lock.json', claims: chefLock, what: 'a Chef policy lock' },
  { glob: '**/techniques/**/metadata.xml', claims: rudderMetadata, what: 'a Rudder technique' },
  { glob: '**/technique.{yml,yaml}', claims: rudderTechniqueYAML, what: 'a Rudder technique' },
  { glob: '**/rules/*.json', claims: rudderJSON, what: 'a Rudder export' },
  { glob: '**/directives/*.json', claims: rudderJSON, what: 'a Rudder export' },
  { glob: '**/{rules,directives}.json', claims: rudderJSON, what: "a Rudder API answer saved under its endpoint's name" },
  { glob: '**/*export*.json', claims: rudderJSON, what: 'a Rudder export' },
  { glob: '**/{rules,directives}/**/*.xml', claims: rudderRepoXML, what: "a Rudder server's configuration repository" },
];

/**
 * VS Code's glob dialect as far as TRIGGERS use it (`**` for any folders, `*`, `?`, `{a,b}`), for
 * the unit tests and the file watcher's events.
 */
export function globRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    if (glob.startsWith('**/', i)) { re += '(?:.*/)?'; i += 2; continue; }
    const c = glob[i];
    if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '{') {
      const j = glob.indexOf('}', i);
      re += `(?:${glob.slice(i + 1, j).split(',').map(escape).join('|')})`;
      i = j;
    } else re += escape(c);
  }
  return new RegExp(`^${re}$`);
}

function escape(s: string): string { return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'); }

const triggerRes = new Map<string, RegExp>();
const globOf = (t: Trigger) => {
  let re = triggerRes.get(t.glob);
  if (!re) triggerRes.set(t.glob, re = globRegExp(t.glob));
  return re;
};

/** Some activation glob matches a workspace-relative path (with `/`): its content may matter. */
export function candidate(rel: string): boolean {
  return TRIGGERS.some((t) => globOf(t).test(rel));
}

/** The trigger a workspace-relative path (with `/`) and its head satisfy, if any. */
export function claimingTrigger(rel: string, head: () => string): Trigger | undefined {
  for (const t of TRIGGERS) {
    if (globOf(t).test(rel) && (!t.claims || t.claims(head()))) return t;
  }
  return undefined;
}

/**
 * An open document the server would analyse, wherever it is: the languages the extension brings
 * (every .pp and .sls; a .cf file by content: Postfix's main.cf is "cfengine" here too), and Ruby
 * or JSON by content (a policy in a folder of any name, a lock, a Rudder export).
 */
export function claimsDocument(doc: { languageId: string; path: string; text: string }): boolean {
  const head = doc.text.slice(0, HEAD_BYTES);
  switch (doc.languageId) {
    case 'puppet': case 'sls': return true;
    case 'cfengine': return cfenginePolicy(head);
  }
  const base = doc.path.split('/').pop() || '';
  if (base.endsWith('.rb')) return chefPolicy(head);
  if (base.endsWith('.json')) return chefLock(head) || rudderJSON(head);
  if (base === 'metadata.xml') return rudderMetadata(head);
  if (/^technique\.ya?ml$/.test(base)) return rudderTechniqueYAML(head);
  return false;
}

/**
 * A setting that says the workspace holds what the server analyses where no name or content test
 * finds it: `ordering.rudder.glob` names Rudder exports of any name and extension.
 */
export function settingReason(get: (key: string) => unknown): string | undefined {
  const glob = get('rudder.glob');
  return typeof glob === 'string' && glob.trim() !== '' ? `ordering.rudder.glob is set (${glob})` : undefined;
}
