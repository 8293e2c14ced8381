import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_SETTINGS, didChangeConfigurationParams, fromObject, needsRestart, toServerSettings } from '../src/settings';

test('defaults when nothing is set', () => {
  assert.deepEqual(toServerSettings(() => undefined), DEFAULT_SETTINGS);
  assert.deepEqual(DEFAULT_SETTINGS, {
    puppet: { ordering: 'manifest', facts: '', modulepath: '', certname: '', seed: '', enc: '' },
    salt: { stateAutoOrder: true, engine: '3007', facts: '', fileRoot: '', minions: '' },
    cfengine: { evaluationOrder: 'classic', bundlesequence: '', version: '' },
    rudder: { nodeGroups: '', glob: '' },
    inlayHints: { enabled: true }, codeLens: { enabled: true }, node: '',
  });
});

test('the server gets the ordering section minus server and trace', () => {
  const section = {
    server: { path: '/x/ordering-lsp' }, trace: { server: 'verbose' },
    puppet: { ordering: 'title-hash', facts: 'spec/factsets' }, salt: { stateAutoOrder: false, engine: 'master' },
    cfengine: { evaluationOrder: 'top_down' }, inlayHints: { enabled: false }, codeLens: { enabled: false }, node: 'web1.example.com',
  };
  const s = toServerSettings(fromObject(section));
  assert.deepEqual(s, {
    ...DEFAULT_SETTINGS,
    puppet: { ...DEFAULT_SETTINGS.puppet, ordering: 'title-hash', facts: 'spec/factsets' }, salt: { ...DEFAULT_SETTINGS.salt, stateAutoOrder: false, engine: 'master' },
    cfengine: { ...DEFAULT_SETTINGS.cfengine, evaluationOrder: 'top_down' }, inlayHints: { enabled: false }, codeLens: { enabled: false }, node: 'web1.example.com',
  });
  assert.equal(JSON.stringify(s).includes('server'), false);
  assert.equal(JSON.stringify(s).includes('trace'), false);
});

test('didChangeConfiguration carries the same object under settings.ordering', () => {
  const s = toServerSettings(fromObject({ puppet: { ordering: 'random' } }));
  assert.deepEqual(didChangeConfigurationParams(s), { settings: { ordering: s } });
});

test('invalid values fall back to defaults; engine 3007 written as a number is accepted', () => {
  const s = toServerSettings(fromObject({
    puppet: { ordering: 'alphabetical' }, salt: { stateAutoOrder: 'yes', engine: 3007 },
    cfengine: { evaluationOrder: 42 }, inlayHints: null, codeLens: { enabled: 'no' }, node: 7,
  }));
  assert.deepEqual(s, DEFAULT_SETTINGS);
});

test('only a change of the server path restarts the server', () => {
  assert.equal(needsRestart((k) => k === 'ordering.server.path'), true);
  assert.equal(needsRestart((k) => k === 'ordering.puppet.ordering'), false);
});

test('package.json declares exactly the settings of the contract, with the same enums and defaults', () => {
  const pkg = JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'));
  const props = pkg.contributes.configuration.properties;
  assert.deepEqual(Object.keys(props).sort(), [
    'ordering.cfengine.bundlesequence', 'ordering.cfengine.evaluationOrder', 'ordering.cfengine.version',
    'ordering.codeLens.enabled', 'ordering.inlayHints.enabled', 'ordering.node',
    'ordering.puppet.certname', 'ordering.puppet.enc', 'ordering.puppet.facts', 'ordering.puppet.modulepath', 'ordering.puppet.ordering', 'ordering.puppet.seed',
    'ordering.rudder.glob', 'ordering.rudder.nodeGroups',
    'ordering.salt.engine', 'ordering.salt.facts', 'ordering.salt.fileRoot', 'ordering.salt.minions', 'ordering.salt.stateAutoOrder',
    'ordering.server.path', 'ordering.trace.server',
  ]);
  assert.deepEqual(props['ordering.puppet.ordering'].enum, ['manifest', 'title-hash', 'random']);
  assert.deepEqual(props['ordering.salt.engine'].enum, ['3007', 'master']);
  assert.deepEqual(props['ordering.cfengine.evaluationOrder'].enum, ['classic', 'top_down']);
  // package.json defaults == what the server gets when nothing is set
  const fromDefaults = toServerSettings((k) => props['ordering.' + k]?.default);
  assert.deepEqual(fromDefaults, DEFAULT_SETTINGS);
});

test('facts, modulepath, certname, ENC, Salt facts, file root and minions reach the server; paths made absolute', () => {
  const s = toServerSettings(fromObject({
    puppet: { facts: 'facts/web01.yaml', modulepath: 'site:modules:$basemodulepath', certname: 'web01.example.com', seed: 42, enc: 'enc' },
    salt: { facts: '~/minion.yaml', fileRoot: '${workspaceFolder}/srv/salt', minions: 'minions' },
    cfengine: { bundlesequence: 'main, extra', version: '3.21.0' },
    rudder: { nodeGroups: 'web', glob: '**/rudder/*.json' },
  }), { workspaceFolder: '/ws', HOME: '/home/u' });
  assert.deepEqual(s.puppet, { ordering: 'manifest', facts: '/ws/facts/web01.yaml', modulepath: '/ws/site:/ws/modules:$basemodulepath', certname: 'web01.example.com', seed: '42', enc: '/ws/enc' });
  assert.deepEqual(s.salt, { stateAutoOrder: true, engine: '3007', facts: '/home/u/minion.yaml', fileRoot: '/ws/srv/salt', minions: '/ws/minions' });
  assert.deepEqual(s.cfengine, { evaluationOrder: 'classic', bundlesequence: 'main, extra', version: '3.21.0' });
  assert.deepEqual(s.rudder, { nodeGroups: 'web', glob: '**/rudder/*.json' });
});

test('every key the server reads has a setting (read from the Go sources of analysis/ and lsp/)', () => {
  const root = path.join(__dirname, '..', '..', '..');
  const keys = new Set<string>();
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const f = path.join(dir, e.name);
      if (e.isDirectory()) { if (e.name !== 'testdata') walk(f); continue; }
      if (!e.name.endsWith('.go') || e.name.endsWith('_test.go')) continue;
      for (const m of readFileSync(f, 'utf8').matchAll(/[Ss]ettings\.(?:Get|Bool|Int)\("([a-zA-Z.]+)"/g)) keys.add(m[1]);
    }
  };
  walk(path.join(root, 'analysis'));
  walk(path.join(root, 'lsp'));
  assert.ok(keys.has('puppet.facts') && keys.has('salt.fileRoot'), `found ${[...keys]}`);
  const pkg = JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'));
  const missing = [...keys].filter((k) => !pkg.contributes.configuration.properties['ordering.' + k]);
  assert.deepEqual(missing, []);
  // and the extension passes each one on
  const sent = toServerSettings(() => undefined) as unknown as Record<string, Record<string, unknown>>;
  assert.deepEqual([...keys].filter((k) => { const [a, b] = k.split('.'); return !(a in sent && b in sent[a]); }), []);
});
