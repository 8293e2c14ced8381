// The 'ordering' configuration section -> what the server receives (initializationOptions and
// workspace/didChangeConfiguration). Client-only keys (server, trace) are dropped; unknown or
// invalid values fall back to the defaults so the server never sees garbage.

export interface ServerSettings {
  puppet: { ordering: 'manifest' | 'title-hash' | 'random'; facts: string };
  salt: { stateAutoOrder: boolean; engine: '3007' | 'master' };
  cfengine: { evaluationOrder: 'classic' | 'top_down' };
  inlayHints: { enabled: boolean };
  codeLens: { enabled: boolean };
  /** the node picker's choice: '' = all nodes */
  node: string;
}

export const DEFAULT_SETTINGS: ServerSettings = {
  puppet: { ordering: 'manifest', facts: '' },
  salt: { stateAutoOrder: true, engine: '3007' },
  cfengine: { evaluationOrder: 'classic' },
  inlayHints: { enabled: true },
  codeLens: { enabled: true },
  node: '',
};

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

/**
 * get(key) reads one dotted key of the 'ordering' section ("puppet.ordering"), like
 * vscode.WorkspaceConfiguration.get. Works on a plain object too (see fromObject).
 */
export function toServerSettings(get: Getter): ServerSettings {
  const d = DEFAULT_SETTINGS;
  return {
    puppet: {
      ordering: oneOf(get('puppet.ordering'), ['manifest', 'title-hash', 'random'] as const, d.puppet.ordering),
      facts: str(get('puppet.facts')),
    },
    salt: {
      stateAutoOrder: bool(get('salt.stateAutoOrder'), d.salt.stateAutoOrder),
      engine: oneOf(get('salt.engine'), ['3007', 'master'] as const, d.salt.engine),
    },
    cfengine: { evaluationOrder: oneOf(get('cfengine.evaluationOrder'), ['classic', 'top_down'] as const, d.cfengine.evaluationOrder) },
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
