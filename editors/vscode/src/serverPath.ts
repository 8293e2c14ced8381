// Where is the ordering-lsp executable? Pure logic (file system access injected) so it is unit-tested.
import * as path from 'path';

export const SERVER_NAME = 'ordering-lsp';

export interface ResolveEnv {
  /** the PATH environment variable */
  PATH?: string;
  /** Windows: the PATHEXT environment variable */
  PATHEXT?: string;
  HOME?: string;
  platform: NodeJS.Platform | string;
  /** first workspace folder (absolute), if any */
  workspaceFolder?: string;
  /** true when the file exists and can be executed */
  isExecutable: (file: string) => boolean;
  /** the server shipped inside a platform-specific .vsix (extension/server/ordering-lsp[.exe]), if any */
  bundled?: string;
}

export type Resolved =
  | { ok: true; path: string; from: 'setting' | 'bundled' | 'PATH' }
  | { ok: false; reason: string };

/** Expands ~ and ${workspaceFolder}; makes a relative path absolute against the workspace folder. */
export function expandSetting(setting: string, env: Pick<ResolveEnv, 'HOME' | 'workspaceFolder' | 'platform'>): string {
  const p = env.platform === 'win32' ? path.win32 : path.posix;
  let s = setting.trim();
  if (env.workspaceFolder) s = s.split('${workspaceFolder}').join(env.workspaceFolder);
  if (env.HOME && (s === '~' || s.startsWith('~/') || s.startsWith('~\\'))) s = env.HOME + s.slice(1);
  if (!p.isAbsolute(s) && env.workspaceFolder && (s.includes('/') || s.includes('\\'))) {
    s = p.resolve(env.workspaceFolder, s);
  }
  return s;
}

/** Candidate file names on PATH (Windows adds PATHEXT extensions). */
function executableNames(name: string, env: ResolveEnv): string[] {
  if (env.platform !== 'win32') return [name];
  const exts = (env.PATHEXT || '.EXE;.CMD;.BAT;.COM').split(';').filter(Boolean);
  return [name, ...exts.map((e) => name + e.toLowerCase()), ...exts.map((e) => name + e)];
}

/** Looks up a bare command name on PATH. */
export function searchPath(name: string, env: ResolveEnv): string | undefined {
  const p = env.platform === 'win32' ? path.win32 : path.posix;
  const sep = env.platform === 'win32' ? ';' : ':';
  for (const dir of (env.PATH || '').split(sep)) {
    if (!dir) continue;
    for (const n of executableNames(name, env)) {
      const f = p.join(dir, n);
      if (env.isExecutable(f)) return f;
    }
  }
  return undefined;
}

/**
 * The setting wins when set: an absolute/relative path must exist and be executable; a bare name
 * ("ordering-lsp-dev") is looked up on PATH. Empty setting: the server bundled in the extension
 * (platform-specific .vsix), else ordering-lsp on PATH.
 */
export function resolveServerPath(setting: string | undefined, env: ResolveEnv): Resolved {
  const raw = (setting || '').trim();
  if (raw) {
    const expanded = expandSetting(raw, env);
    const bare = !expanded.includes('/') && !expanded.includes('\\');
    if (bare) {
      const found = searchPath(expanded, env);
      if (found) return { ok: true, path: found, from: 'setting' };
      return { ok: false, reason: `ordering.server.path is "${raw}", which is not found on PATH` };
    }
    if (env.isExecutable(expanded)) return { ok: true, path: expanded, from: 'setting' };
    return { ok: false, reason: `ordering.server.path is "${raw}", but ${expanded} does not exist or is not executable` };
  }
  if (env.bundled && env.isExecutable(env.bundled)) return { ok: true, path: env.bundled, from: 'bundled' };
  const found = searchPath(SERVER_NAME, env);
  if (found) return { ok: true, path: found, from: 'PATH' };
  return { ok: false, reason: `${SERVER_NAME} is not on PATH, this extension has no bundled server for ${env.platform}, and ordering.server.path is not set` };
}
