import { test } from 'node:test';
import assert from 'node:assert/strict';
import { filterView, searchNodes, shortestPath, toViewModel } from '../src/graphModel';
import type { GraphEdge, GraphNode, GraphResult } from '../src/protocol';

// A module as the server sends it: class web holds a package, a config file and a service;
// class db holds a package; web's service waits for db's package; a cycle between two notifies
// elsewhere; a chain a -> b -> c -> d to measure hops on.
const r = (line: number) => ({ start: { line, character: 0 }, end: { line, character: 5 } });
const n = (id: number, label: string, extra: Partial<GraphNode> = {}): GraphNode =>
  ({ id, label, kind: 'resource', system: 'puppet', uri: 'file:///ws/site.pp', range: r(id), position: id, cycle: false, ...extra });
const e = (from: number, to: number, reason = 'require', extra: Partial<GraphEdge> = {}): GraphEdge =>
  ({ from, to, kind: 'order', reason, cycle: false, ...extra });
const res: GraphResult = {
  nodes: [
    n(1, 'Class[Web]', { kind: 'class', container: true, position: null }),
    n(2, 'Package[nginx]', { parent: 1 }),
    n(3, 'File[/etc/nginx.conf]', { parent: 1, uri: 'file:///ws/modules/web/conf.pp' }),
    n(4, 'Service[nginx]', { parent: 1 }),
    n(5, 'Class[Db]', { kind: 'class', container: true, position: null }),
    n(6, 'Package[postgresql]', { parent: 5 }),
    n(7, 'Notify[x]', { cycle: true, position: null }),
    n(8, 'Notify[y]', { cycle: true, position: null }),
    n(9, 'Notify[a]'), n(10, 'Notify[b]'), n(11, 'Notify[c]'), n(12, 'Notify[d]'),
  ],
  edges: [
    e(2, 3), e(3, 4, 'subscribe', { kind: 'refresh' }), e(6, 4), e(2, 4),
    e(7, 8, 'require', { cycle: true }), e(8, 7, 'before', { cycle: true }),
    e(9, 10), e(10, 11), e(11, 12),
  ],
  focus: 10,
};
const model = toViewModel(res, 'site.pp');
const ids = (xs: { id: string }[]) => xs.map((x) => x.id).sort();

test('the server focus and containers come through: a node names the container drawn around it', () => {
  assert.equal(model.focus, 'n10');
  assert.equal(model.nodes.find((x) => x.id === 'n4')!.parent, 'n1');
  assert.equal(model.nodes.find((x) => x.id === 'n1')!.container, true);
  assert.match(model.nodes.find((x) => x.id === 'n1')!.classes, /\bcontainer\b/);
});

test('focus with N hops keeps what is at most N relationships away, either direction', () => {
  assert.deepEqual(ids(filterView(model, { focus: 'n10', hops: 1 }).nodes), ['n10', 'n11', 'n9']);
  assert.deepEqual(ids(filterView(model, { focus: 'n10', hops: 2 }).nodes), ['n10', 'n11', 'n12', 'n9']);
  assert.deepEqual(ids(filterView(model, { focus: 'n10', hops: 0 }).nodes), ['n10']);
  // no focus: everything
  assert.equal(filterView(model, {}).nodes.length, model.nodes.length);
});

test('a focused node brings its containers as frames, and only edges between kept nodes stay', () => {
  const v = filterView(model, { focus: 'n6', hops: 1 });
  assert.deepEqual(ids(v.nodes), ['n1', 'n4', 'n5', 'n6']);
  assert.deepEqual(v.edges.map((x) => `${x.source}>${x.target}`), ['n6>n4']);
});

test('cycles only keeps the nodes and edges of cycles', () => {
  const v = filterView(model, { cyclesOnly: true });
  assert.deepEqual(ids(v.nodes), ['n7', 'n8']);
  assert.equal(v.edges.length, 2);
  assert.ok(v.edges.every((x) => x.cycle));
});

test('a collapsed container stands for what it holds: edges move to it, inner ones vanish, duplicates merge', () => {
  const v = filterView(model, { collapsed: new Set(['n1']) });
  assert.ok(!v.nodes.some((x) => ['n2', 'n3', 'n4'].includes(x.id)));
  assert.match(v.nodes.find((x) => x.id === 'n1')!.classes, /\bcollapsed\b/);
  // Package[postgresql] -> Service[nginx] now ends at Class[Web]; nothing inside web is left
  assert.deepEqual(v.edges.filter((x) => x.source === 'n6' || x.target === 'n1').map((x) => `${x.source}>${x.target}`), ['n6>n1']);
  assert.equal(v.stats.nodes, v.nodes.length);
});

test('search finds labels and file names, case-insensitively', () => {
  assert.deepEqual(searchNodes(model, 'NGINX'), ['n2', 'n3', 'n4']);
  assert.deepEqual(searchNodes(model, 'conf.pp'), ['n3']);
  assert.deepEqual(searchNodes(model, '  '), []);
});

test('the path between two nodes is the shortest chain, whichever runs first', () => {
  assert.deepEqual(shortestPath(model, 'n9', 'n12'), { nodes: ['n9', 'n10', 'n11', 'n12'], edges: shortestPath(model, 'n12', 'n9')!.edges });
  assert.deepEqual(shortestPath(model, 'n2', 'n4')!.nodes, ['n2', 'n4']); // direct, not through the file
  assert.equal(shortestPath(model, 'n9', 'n2'), null);
  assert.equal(shortestPath(model, 'n9', 'n9'), null);
});

test('the edges between a node and a container around it are the frame itself: not drawn', () => {
  const m = toViewModel({
    nodes: [n(1, 'Class[Web]', { kind: 'class', container: true, position: null }), n(2, 'Package[nginx]', { parent: 1 }), n(3, 'Notify[x]')],
    edges: [e(1, 2, 'contains'), e(2, 1, 'contains'), e(2, 3)],
  }, 't');
  assert.deepEqual(filterView(m, {}).edges.map((x) => `${x.source}>${x.target}`), ['n2>n3']);
});

test('what is written on a container orders what it holds: the focus reaches it at no distance', () => {
  // Service[nginx] is only related through its class: Class[Db] -> Class[Web]
  const m = toViewModel({
    nodes: [n(1, 'Class[Web]', { kind: 'class', container: true, position: null }), n(2, 'Service[nginx]', { parent: 1 }),
      n(3, 'Class[Db]', { kind: 'class', container: true, position: null }), n(4, 'Notify[far]')],
    edges: [e(1, 2, 'contains'), e(2, 1, 'contains'), e(3, 1, '->'), e(4, 3)],
    focus: 2,
  }, 't');
  assert.deepEqual(ids(filterView(m, { focus: 'n2', hops: 1 }).nodes), ['n1', 'n2', 'n3']);
  assert.deepEqual(ids(filterView(m, { focus: 'n2', hops: 2 }).nodes), ['n1', 'n2', 'n3', 'n4']);
});

test('a focused container shows what it holds one step inside it', () => {
  assert.deepEqual(ids(filterView(model, { focus: 'n1', hops: 1 }).nodes), ['n1', 'n2', 'n3', 'n4']);
});
