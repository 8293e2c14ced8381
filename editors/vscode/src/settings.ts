// The 'ordering' configuration section -> what the server receives (initializationOptions and
// workspace/didChangeConfiguration). Client-only keys (server, trace) are dropped; unknown or
// invalid values fall back to the defaults so the server never sees garbage.

// Every key the server reads (analysis Settings: the same names as the CLI's flags) has a
// setting here; '' means "not set: the server's default". Paths are made absolute against the
// first workspace folder (the server does not know which folder a relative path meant).
export interface ServerSettings {
  puppet: { ordering: 'manifest' | 'title-hash' | 'random'; facts: string; modulepath: string; certname: string; seed: string; enc: string };
  salt: { stateAutoOrder: boolean; engine: '3007' | 'master'; facts: string; fileRoot: string; minions: string };
  cfengine: { evaluationOrder: 'classic' | 'top_down'; bundlesequence: string; version: string };
  rudder: { nodeGroups: string; glob: string };
  inlayHints: { enabled: boolean };
  codeLens: { enabled: boolean };
  /** the node picker's choice: '' = all nodes */
  node: string;
}

export const DEFAULT_SETTINGS: ServerSettings = {
  puppet: { ordering: 'manifest', facts: '', modulepath: '', certname: '', seed: '', enc: '' },
  salt: { stateAutoOrder: true, engine: '3007', facts: '', fileRoot: '', minions: '' },
  cfengine: { evaluationOrder: 'classic', bundlesequence: '', version: '' },
  rudder: { nodeGroups: '', glob: '' },
  inlayHints: { enabled: true },
  codeLens: { enabled: true },
  node: '',
};

/** Where relative paths and ~ point: the first workspace folder, the home directory. */
export interface PathEnv { workspaceFolder?: string; HOME?: string }

/** keys of the 'ordering' section that only the client uses */
export const CLIENT_ONLY_KEYS = ['server', 'trace'];

type Getter = (key: string) => unknown;

function oneOf<T extends string>(v: unknown, allowed: readonly T[], dflt: T): T {
  // VS Code may hand back a number for "3007" when a user writes it without quotes
  const s = typeof v === 'number' ? String(v) : v;
  return typeof s === 'string' && (allowed as readonly string[]).includes(s) ? (s as T) : dflt;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v.trim() : '';
}

function bool(v: unknown, dflt: boolean): boolean {
  return typeof v === 'boolean' ? v : dflt;
}

function text(v: unknown): string {
  return typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : '';
}

/** ~ and ${workspaceFolder} expanded, a relative path made absolute against the folder. */
export function expandPath(v: string, env: PathEnv): string {
  let s = v.trim();
  if (!s) return s;
  if (env.workspaceFolder) s = s.split('${workspaceFolder}').join(env.workspaceFolder);
  if (env.HOME && (s === '~' || s.startsWith('~/'))) s = env.HOME + s.slice(1);
  if (!s.startsWith('/') && !/^[A-Za-z]:[\\/]/.test(s) && env.workspaceFolder) s = env.workspaceFolder.replace(/[\\/]$/, '') + '/' + s;
  return s;
}

/** A colon-separated list of paths (Puppet's modulepath), each expanded. */
function expandPaths(v: string, env: PathEnv): string {
  return v.split(':').map((p) => p.trim()).filter(Boolean).map((p) => p.startsWith('$') && !p.startsWith('${workspaceFolder}') ? p : expandPath(p, env)).join(':');
}

/**
 * get(key) reads one dotted key of the 'ordering' section ("puppet.ordering"), like
 * vscode.WorkspaceConfiguration.get. Works on a plain object too (see fromObject).
 */
export function toServerSettings(get: Getter, env: PathEnv = {}): ServerSettings {
  const d = DEFAULT_SETTINGS;
  const file = (k: string) => expandPath(text(get(k)), env);
  return {
    puppet: {
      ordering: oneOf(get('puppet.ordering'), ['manifest', 'title-hash', 'random'] as const, d.puppet.ordering),
      facts: file('puppet.facts'),
      modulepath: expandPaths(text(get('puppet.modulepath')), env),
      certname: text(get('puppet.certname')),
      seed: text(get('puppet.seed')),
      enc: file('puppet.enc'),
    },
    salt: {
      stateAutoOrder: bool(get('salt.stateAutoOrder'), d.salt.stateAutoOrder),
      engine: oneOf(get('salt.engine'), ['3007', 'master'] as const, d.salt.engine),
      facts: file('salt.facts'),
      fileRoot: file('salt.fileRoot'),
      minions: file('salt.minions'),
    },
    cfengine: {
      evaluationOrder: oneOf(get('cfengine.evaluationOrder'), ['classic', 'top_down'] as const, d.cfengine.evaluationOrder),
      bundlesequence: text(get('cfengine.bundlesequence')),
      version: text(get('cfengine.version')),
    },
    rudder: { nodeGroups: text(get('rudder.nodeGroups')), glob: text(get('rudder.glob')) },
    inlayHints: { enabled: bool(get('inlayHints.enabled'), d.inlayHints.enabled) },
    codeLens: { enabled: bool(get('codeLens.enabled'), d.codeLens.enabled) },
    node: str(get('node')),
  };
}

/** A getter over a nested object such as { puppet: { ordering: 'random' } }. */
export function fromObject(obj: unknown): Getter {
  return (key: string) => {
    let cur: unknown = obj;
    for (const k of key.split('.')) {
      if (cur === null || typeof cur !== 'object') return undefined;
      cur = (cur as Record<string, unknown>)[k];
    }
    return cur;
  };
}

/** params of workspace/didChangeConfiguration */
export function didChangeConfigurationParams(s: ServerSettings): { settings: { ordering: ServerSettings } } {
  return { settings: { ordering: s } };
}

/** Does a change of these keys need a server restart rather than a didChangeConfiguration? */
export function needsRestart(affects: (section: string) => boolean): boolean {
  return affects('ordering.server.path');
}
