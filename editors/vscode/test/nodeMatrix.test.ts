import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nodeRows, nodeTitle, ordinal } from '../src/nodeMatrix';
import type { NodeMatrixResult } from '../src/protocol';

const answer: NodeMatrixResult = {
  subject: 'Package[$pkg]', kind: 'resource', current: '',
  nodes: [
    { name: 'deb12.example.com', detail: 'Debian 12.5', uri: 'file:///w/factsets/deb12.json', refs: ['Package[apache2]'],
      runs: [{ run: 'manifests/', index: 1, of: 3, refused: false }], summary: '1st of 3 in manifests/ as Package[apache2]' },
    { name: 'el9.example.com', detail: 'RedHat 9.3', runs: [], absent: 'not declared on this node: x is false for its data',
      summary: 'not declared on this node: x is false for its data' },
    { name: 'el8.example.com', runs: [{ run: 'a', index: 2, of: 5, refused: true }, { run: 'b', index: 11, of: 12, refused: false }],
      problems: ['Found 1 dependency cycle'], summary: '2nd of 5 in a (the run fails); 11th of 12 in b — Found 1 dependency cycle' },
  ],
};

test('one row per node: where it runs, or why not; a node with problems or several runs has them below', () => {
  const rows = nodeRows(answer, '');
  assert.deepEqual(rows.map((r) => [r.label, r.description, r.kind, r.uri]), [
    ['deb12.example.com', '1st of 3 as Package[apache2]', 'runs', 'file:///w/factsets/deb12.json'],
    ['el9.example.com', 'not declared (other branch)', 'absent', undefined],
    ['el8.example.com', '2nd of 5, run fails (+1 runs) · 1 problem', 'problem', undefined],
  ]);
  assert.equal(rows[0].children, undefined);
  assert.deepEqual(rows[2].children?.map((c) => [c.label, c.description ?? '', c.kind]), [
    ['Found 1 dependency cycle', '', 'problem'],
    ['2nd of 5', 'a (the run fails)', 'run'],
    ['11th of 12', 'b', 'run'],
  ]);
  assert.match(rows[0].tooltip ?? '', /^deb12\.example\.com \(Debian 12\.5\)\n1st of 3 in manifests\/ as Package\[apache2\]$/);
  assert.match(rows[1].tooltip ?? '', /x is false for its data/);
  assert.equal(nodeTitle(answer), 'Package[$pkg]');
});

test('a chosen node, no declaration, no node data: one line that says so', () => {
  assert.match(nodeRows(answer, 'el9.example.com')[0].label, /Showing node el9\.example\.com/);
  assert.equal(nodeRows({ subject: '', current: '', nodes: [], message: 'no declaration at the cursor' }, '')[0].label, 'no declaration at the cursor');
  assert.equal(nodeRows(undefined, '')[0].kind, 'info');
});

test('ordinals as the server writes them', () => {
  assert.deepEqual([1, 2, 3, 4, 11, 12, 13, 21, 22, 111, 101].map(ordinal), ['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '22nd', '111th', '101st']);
});
