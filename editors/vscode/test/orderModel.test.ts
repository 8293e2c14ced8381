import { test } from 'node:test';
import assert from 'node:assert/strict';
import { toOrderTree } from '../src/orderModel';

const range = { start: { line: 2, character: 0 }, end: { line: 2, character: 10 } };

test('one tree node per run, one numbered child per step with its location', () => {
  const t = toOrderTree({
    runs: [{
      name: 'puppet apply site.pp', entry: 'file:///ws/site.pp', refused: false,
      steps: [
        { label: 'Notify[b]', note: '', uri: 'file:///ws/site.pp', range },
        { label: 'Notify[a]', note: 'refreshed by Notify[b]', uri: 'file:///ws/site.pp', range },
      ],
    }],
  });
  assert.equal(t.length, 1);
  assert.equal(t[0].label, 'puppet apply site.pp');
  assert.equal(t[0].description, '2 steps');
  assert.equal(t[0].kind, 'run');
  assert.deepEqual(t[0].children!.map((c) => [c.label, c.description]), [['1. Notify[b]', undefined], ['2. Notify[a]', 'refreshed by Notify[b]']]);
  assert.deepEqual(t[0].children![0].location, { uri: 'file:///ws/site.pp', range });
});

test('a refused run is marked, and says how many steps are still listed', () => {
  const t = toOrderTree({ runs: [{ name: 'cf-agent', entry: '', refused: true, steps: [] }, { name: 'x', entry: '', refused: true, steps: [{ label: 'a', note: '', uri: '', range }] }] });
  assert.deepEqual(t.map((r) => [r.kind, r.description]), [['refused', 'refused'], ['refused', 'refused, 1 step listed']]);
  assert.equal(t[1].children![0].location, undefined); // no uri, no jump
});

test('no runs: a single explanatory item', () => {
  assert.deepEqual(toOrderTree({ runs: [] }).map((i) => i.kind), ['empty']);
  assert.deepEqual(toOrderTree(null).map((i) => i.kind), ['empty']);
});

test('runs the server left out are counted, not lost', () => {
  const t = toOrderTree({ runs: [{ name: 'site.pp', entry: '', refused: false, steps: [{ label: 'a', note: '', uri: '', range }] }], omitted: 749 });
  assert.deepEqual(t.map((i) => i.kind), ['run', 'empty']);
  assert.equal(t[1].label, '749 more runs also involve this file');
  assert.deepEqual(toOrderTree({ runs: [], omitted: 0 }).map((i) => i.kind), ['empty']);
});
