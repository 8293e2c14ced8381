import { test } from 'node:test';
import assert from 'node:assert/strict';
import { expandSetting, resolveServerPath, searchPath } from '../src/serverPath';

const files = (...paths: string[]) => (f: string) => paths.includes(f);
const linux = (exec: (f: string) => boolean, extra = {}) => ({
  PATH: '/usr/local/bin:/usr/bin', HOME: '/home/u', platform: 'linux', workspaceFolder: '/ws', isExecutable: exec, ...extra,
});

test('empty setting: ordering-lsp is looked up on PATH, first directory wins', () => {
  const r = resolveServerPath('', linux(files('/usr/bin/ordering-lsp', '/usr/local/bin/ordering-lsp')));
  assert.deepEqual(r, { ok: true, path: '/usr/local/bin/ordering-lsp', from: 'PATH' });
});

test('empty setting and nothing on PATH: a reason that names both fixes', () => {
  const r = resolveServerPath(undefined, linux(files()));
  assert.equal(r.ok, false);
  assert.match((r as { reason: string }).reason, /not on PATH, this extension has no bundled server for linux, and ordering\.server\.path is not set/);
});

test('empty setting: the bundled server wins over PATH', () => {
  const r = resolveServerPath('', linux(files('/ext/server/ordering-lsp', '/usr/bin/ordering-lsp'), { bundled: '/ext/server/ordering-lsp' }));
  assert.deepEqual(r, { ok: true, path: '/ext/server/ordering-lsp', from: 'bundled' });
});

test('a bundled server that is missing (universal .vsix) falls back to PATH', () => {
  const r = resolveServerPath('', linux(files('/usr/bin/ordering-lsp'), { bundled: '/ext/server/ordering-lsp' }));
  assert.deepEqual(r, { ok: true, path: '/usr/bin/ordering-lsp', from: 'PATH' });
});

test('the setting wins over the bundled server', () => {
  const r = resolveServerPath('/opt/o/ordering-lsp', linux(files('/opt/o/ordering-lsp', '/ext/server/ordering-lsp'), { bundled: '/ext/server/ordering-lsp' }));
  assert.deepEqual(r, { ok: true, path: '/opt/o/ordering-lsp', from: 'setting' });
});

test('absolute setting wins over PATH', () => {
  const r = resolveServerPath('/opt/o/ordering-lsp', linux(files('/opt/o/ordering-lsp', '/usr/bin/ordering-lsp')));
  assert.deepEqual(r, { ok: true, path: '/opt/o/ordering-lsp', from: 'setting' });
});

test('a setting that points nowhere is an error, not a silent fallback to PATH', () => {
  const r = resolveServerPath('/opt/missing', linux(files('/usr/bin/ordering-lsp')));
  assert.equal(r.ok, false);
  assert.match((r as { reason: string }).reason, /\/opt\/missing does not exist or is not executable/);
});

test('~ and ${workspaceFolder} are expanded, relative paths are taken from the workspace folder', () => {
  const env = { HOME: '/home/u', workspaceFolder: '/ws', platform: 'linux' };
  assert.equal(expandSetting('~/bin/ordering-lsp', env), '/home/u/bin/ordering-lsp');
  assert.equal(expandSetting('${workspaceFolder}/bin/ordering-lsp', env), '/ws/bin/ordering-lsp');
  assert.equal(expandSetting('./bin/ordering-lsp', env), '/ws/bin/ordering-lsp');
  assert.equal(expandSetting('  /abs/x  ', env), '/abs/x');
  const r = resolveServerPath('bin/ordering-lsp', linux(files('/ws/bin/ordering-lsp')));
  assert.deepEqual(r, { ok: true, path: '/ws/bin/ordering-lsp', from: 'setting' });
});

test('a bare name in the setting is looked up on PATH', () => {
  const r = resolveServerPath('ordering-lsp-dev', linux(files('/usr/bin/ordering-lsp-dev')));
  assert.deepEqual(r, { ok: true, path: '/usr/bin/ordering-lsp-dev', from: 'setting' });
  assert.equal(resolveServerPath('nope', linux(files())).ok, false);
});

test('empty PATH entries are skipped', () => {
  assert.equal(searchPath('x', linux(files('x'), { PATH: '::/bin' })), undefined);
  assert.equal(searchPath('x', linux(files('/bin/x'), { PATH: '::/bin' })), '/bin/x');
});

test('Windows: PATH uses ; and PATHEXT extensions', () => {
  const r = resolveServerPath('', {
    PATH: 'C:\\tools;C:\\go\\bin', PATHEXT: '.EXE;.CMD', platform: 'win32',
    isExecutable: files('C:\\go\\bin\\ordering-lsp.exe'),
  });
  assert.deepEqual(r, { ok: true, path: 'C:\\go\\bin\\ordering-lsp.exe', from: 'PATH' });
});
