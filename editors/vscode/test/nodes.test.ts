import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALL_NODES, nodeSetting, pickRows, statusText } from '../src/nodes';

test('the picker lists all nodes first, then the server\'s nodes, the current one picked', () => {
  const rows = pickRows({
    current: 'deb12.example.com',
    nodes: [
      { name: 'db.example.com', detail: 'node block', data: false },
      { name: 'deb12.example.com', detail: 'Debian 12.5', data: true, uri: 'file:///w/factsets/deb12.json' },
    ],
  });
  assert.deepEqual(rows.map((r) => [r.label, r.description, r.node, r.picked]), [
    [ALL_NODES, 'every branch a possibility', '', false],
    ['db.example.com', 'node block', 'db.example.com', false],
    ['deb12.example.com', 'Debian 12.5', 'deb12.example.com', true],
  ]);
  assert.match(rows[2].detail ?? '', /^fact set/);
  assert.match(rows[1].detail ?? '', /^node block/);
});

test('without an answer (no server yet) only "All nodes" is offered, and it is the current one', () => {
  assert.deepEqual(pickRows(undefined).map((r) => [r.label, r.picked]), [[ALL_NODES, true]]);
});

test('the status bar names the node, or all nodes', () => {
  assert.equal(statusText('web1.example.com'), '$(server-environment) Node: web1.example.com');
  assert.equal(statusText(''), '$(server-environment) Node: all nodes');
  assert.equal(nodeSetting(undefined), '');
  assert.equal(nodeSetting(' web1 '), 'web1');
  assert.equal(nodeSetting(42), '');
});
