import { test } from 'node:test';
import assert from 'node:assert/strict';
import { filterView, neighbourhoodLayout, nodeWidth, searchNodes, shortestPath, toViewModel } from '../src/graphModel';
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

// A hub as in puppetlabs-apache: forty files notify the service, which runs before three checks,
// and one package runs before the first file (two relationships away).
const hub = (() => {
  const nodes: GraphNode[] = [n(1, 'Package[httpd]')];
  const edges: GraphEdge[] = [];
  for (let i = 0; i < 40; i++) { nodes.push(n(10 + i, `File[/etc/httpd/conf.d/site${i}.conf]`)); edges.push(e(10 + i, 100, 'notify', { kind: 'refresh' })); }
  edges.push(e(1, 10));
  nodes.push(n(100, 'Service[httpd]'));
  for (let i = 0; i < 3; i++) { nodes.push(n(200 + i, `Exec[check${i}]`)); edges.push(e(100, 200 + i)); }
  return toViewModel({ nodes, edges, focus: 100 }, 'hub');
})();

test('a focused hub: what runs before it on the left, after it on the right, in short columns', () => {
  const pos = neighbourhoodLayout(hub, 'n100', { rows: 12, rowHeight: 44, gap: 40 });
  assert.deepEqual(pos.get('n100'), { x: 0, y: 0 });
  const files = hub.nodes.filter((x) => x.label.startsWith('File')).map((x) => pos.get(x.id)!);
  const checks = hub.nodes.filter((x) => x.label.startsWith('Exec')).map((x) => pos.get(x.id)!);
  assert.ok(files.every((p) => p.x < 0), 'files notify the service: left');
  assert.ok(checks.every((p) => p.x > 0), 'checks wait for the service: right');
  // 40 files in columns of at most 12: 4 even columns
  const columns = new Map<number, number>();
  for (const p of files) columns.set(p.x, (columns.get(p.x) ?? 0) + 1);
  assert.deepEqual([...columns.values()].sort((a, b) => b - a), [10, 10, 10, 10]);
  // in execution order down each column, the first column nearest the hub
  const first = hub.nodes.filter((x) => x.label.startsWith('File')).slice(0, 10).map((x) => pos.get(x.id)!);
  assert.ok(first.every((p, i) => p.x === first[0].x && (i === 0 || p.y > first[i - 1].y)));
  assert.equal(first[0].x, Math.max(...files.map((p) => p.x)));
  // two relationships away is further out than every file
  assert.ok(pos.get('n1')!.x < Math.min(...files.map((p) => p.x)));
  // no two nodes overlap: same column, rows apart; different columns, labels apart
  const all = [...pos.entries()];
  for (const [a, p] of all) for (const [b, q] of all) {
    if (a >= b) continue;
    const w = (nodeWidth(hub.nodes.find((x) => x.id === a)!.display) + nodeWidth(hub.nodes.find((x) => x.id === b)!.display)) / 2;
    assert.ok(Math.abs(p.x - q.x) >= w || Math.abs(p.y - q.y) >= 44, `${a} and ${b} overlap`);
  }
});

test('a focused node without a path to another is placed by execution position', () => {
  const pos = neighbourhoodLayout(model, 'n10');
  // Notify[a] -> Notify[b] (focus) -> Notify[c] -> Notify[d]; Package[nginx] runs before, unrelated
  assert.ok(pos.get('n9')!.x < 0 && pos.get('n11')!.x > 0 && pos.get('n12')!.x > pos.get('n11')!.x);
  assert.ok(pos.get('n2')!.x < 0, 'Package[nginx] (position 2) runs before Notify[b] (10)');
  assert.equal(pos.has('n1'), false, 'Class[Web] frames its members: no position of its own');
});

test('what orders the focus through its container counts as before or after it', () => {
  // Class[Mod] notifies Class[Service], which holds Service[httpd]: Class[Mod] runs before it
  const m = toViewModel({
    nodes: [n(1, 'Class[Service]', { kind: 'class', container: true, position: null }), n(2, 'Service[httpd]', { parent: 1, position: 5 }),
      n(3, 'Class[Mod]', { kind: 'class', container: true, position: null }), n(4, 'Exec[after]', { position: null })],
    edges: [e(1, 2, 'contains'), e(3, 1, 'notify', { kind: 'refresh' }), e(1, 4)],
    focus: 2,
  }, 't');
  const pos = neighbourhoodLayout(filterView(m, { focus: 'n2', hops: 1 }), 'n2');
  assert.ok(pos.get('n3')!.x < 0, 'Class[Mod] runs before');
  assert.ok(pos.get('n4')!.x > 0, 'Exec[after] runs after');
});

test('what shares the class of the focus is laid out inside its frame, the rest beyond it', () => {
  // Class[C54] holds File[conf] -> Service[svc] -> Notify[done]; Class[C53] -> Class[C54] -> Class[C55]
  const m = toViewModel({
    nodes: [n(1, 'Class[C54]', { kind: 'class', container: true, position: null }), n(2, 'File[conf]', { parent: 1 }),
      n(3, 'Service[svc]', { parent: 1 }), n(4, 'Notify[done]', { parent: 1 }),
      n(5, 'Class[C53]', { kind: 'class', container: true, position: null }), n(6, 'Class[C55]', { kind: 'class', container: true, position: null })],
    edges: [e(2, 3), e(3, 4), e(5, 1, '->'), e(1, 6, '->')],
    focus: 3,
  }, 't');
  const v = filterView(m, { focus: 'n3', hops: 2 });
  const pos = neighbourhoodLayout(v, 'n3');
  assert.ok(pos.get('n5')!.x < pos.get('n2')!.x, 'Class[C53] runs before, beyond File[conf] which the frame holds');
  assert.ok(pos.get('n6')!.x > pos.get('n4')!.x, 'Class[C55] runs after, beyond Notify[done]');
});
