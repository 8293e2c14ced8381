import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_SETTINGS, didChangeConfigurationParams, fromObject, needsRestart, toServerSettings } from '../src/settings';

test('defaults when nothing is set', () => {
  assert.deepEqual(toServerSettings(() => undefined), DEFAULT_SETTINGS);
  assert.deepEqual(DEFAULT_SETTINGS, {
    puppet: { ordering: 'manifest', facts: '' }, salt: { stateAutoOrder: true, engine: '3007' },
    cfengine: { evaluationOrder: 'classic' }, inlayHints: { enabled: true }, codeLens: { enabled: true }, node: '',
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
    puppet: { ordering: 'title-hash', facts: 'spec/factsets' }, salt: { stateAutoOrder: false, engine: 'master' },
    cfengine: { evaluationOrder: 'top_down' }, inlayHints: { enabled: false }, codeLens: { enabled: false }, node: 'web1.example.com',
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
    'ordering.cfengine.evaluationOrder', 'ordering.codeLens.enabled', 'ordering.inlayHints.enabled', 'ordering.node', 'ordering.puppet.facts', 'ordering.puppet.ordering',
    'ordering.salt.engine', 'ordering.salt.stateAutoOrder', 'ordering.server.path', 'ordering.trace.server',
  ]);
  assert.deepEqual(props['ordering.puppet.ordering'].enum, ['manifest', 'title-hash', 'random']);
  assert.deepEqual(props['ordering.salt.engine'].enum, ['3007', 'master']);
  assert.deepEqual(props['ordering.cfengine.evaluationOrder'].enum, ['classic', 'top_down']);
  // package.json defaults == what the server gets when nothing is set
  const fromDefaults = toServerSettings((k) => props['ordering.' + k]?.default);
  assert.deepEqual(fromDefaults, DEFAULT_SETTINGS);
});
