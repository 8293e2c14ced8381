import { test } from 'node:test';
import assert from 'node:assert/strict';
import { baseName, graphCsp, toViewModel, truncate } from '../src/graphModel';
import type { GraphNode, GraphResult } from '../src/protocol';

const r = (line: number) => ({ start: { line, character: 0 }, end: { line, character: 5 } });
const node = (id: number, label: string, position: number | null, cycle = false): GraphNode =>
  ({ id, label, kind: 'resource', system: 'puppet', uri: 'file:///ws/site.pp', range: r(id), position, cycle });

test('nodes come in execution order: positions ascending, then unordered ones in server order', () => {
  const res: GraphResult = {
    nodes: [node(1, 'Notify[c]', 3), node(2, 'Notify[a]', null, true), node(3, 'Notify[b]', 1), node(4, 'Notify[d]', 2), node(5, 'Notify[e]', null, true)],
    edges: [],
  };
  const m = toViewModel(res, 'site.pp');
  assert.deepEqual(m.nodes.map((n) => n.label), ['Notify[b]', 'Notify[d]', 'Notify[c]', 'Notify[a]', 'Notify[e]']);
  assert.deepEqual(m.nodes.map((n) => n.display), ['1. Notify[b]', '2. Notify[d]', '3. Notify[c]', 'Notify[a]', 'Notify[e]']);
  assert.deepEqual(m.stats, { nodes: 5, edges: 0, ordered: 3, cycleNodes: 2, droppedEdges: 0, hiddenNodes: 0 });
});

test('cycle nodes and edges get the cycle class (drawn red), edges get their kind class', () => {
  const res: GraphResult = {
    nodes: [node(1, 'Notify[a]', null, true), node(2, 'Notify[b]', null, true)],
    edges: [
      { from: 2, to: 1, kind: 'order', reason: 'require', cycle: true },
      { from: 1, to: 2, kind: 'refresh', reason: 'notify', cycle: true },
    ],
  };
  const m = toViewModel(res, 't');
  assert.equal(m.nodes[0].classes, 'cycle unordered sys-puppet');
  assert.deepEqual(m.edges.map((e) => [e.source, e.target, e.classes, e.reason]), [
    ['n2', 'n1', 'kind-order cycle', 'require'],
    ['n1', 'n2', 'kind-refresh cycle', 'notify'],
  ]);
});

test('edges to unknown nodes are dropped and counted; duplicates are merged with both reasons', () => {
  const res: GraphResult = {
    nodes: [node(1, 'A', 1), node(2, 'B', 2)],
    edges: [
      { from: 1, to: 2, kind: 'order', reason: 'before', cycle: false },
      { from: 1, to: 2, kind: 'order', reason: '->', cycle: false },
      { from: 1, to: 2, kind: 'order', reason: 'before', cycle: false },
      { from: 1, to: 9, kind: 'order', reason: 'require', cycle: false },
    ],
  };
  const m = toViewModel(res, 't');
  assert.equal(m.edges.length, 1);
  assert.equal(m.edges[0].reason, 'before, ->');
  assert.equal(m.stats.droppedEdges, 1);
});

test('a duplicate node id is kept once (cytoscape refuses duplicates)', () => {
  const m = toViewModel({ nodes: [node(1, 'A', 1), node(1, 'A again', 2)], edges: [] }, 't');
  assert.deepEqual(m.nodes.map((n) => n.label), ['A']);
});

test('null, empty or malformed results give an empty graph, not an exception', () => {
  for (const bad of [null, undefined, {} as GraphResult, { nodes: null, edges: null } as unknown as GraphResult]) {
    const m = toViewModel(bad, 'x');
    assert.deepEqual([m.nodes.length, m.edges.length], [0, 0]);
  }
});

test('long labels are shortened for drawing but kept whole for the list; file names are decoded', () => {
  const long = 'File[/etc/' + 'x'.repeat(100) + ']';
  const m = toViewModel({ nodes: [{ ...node(1, long, 12), uri: 'file:///ws/my%20dir/init%20x.pp' }], edges: [] }, 't');
  assert.equal(Array.from(m.nodes[0].display).length, 48);
  assert.ok(m.nodes[0].display.startsWith('12. File[/etc/xxx'));
  assert.ok(m.nodes[0].display.endsWith('…'));
  assert.equal(m.nodes[0].label, long);
  assert.equal(m.nodes[0].file, 'init x.pp');
  assert.equal(truncate('😀'.repeat(60), 5), '😀😀😀😀…');
  assert.equal(baseName('file:///a/b/c.sls?x=1'), 'c.sls');
});

test('the webview CSP allows no network source and no inline or eval script', () => {
  const csp = graphCsp('https://file+.vscode-resource.vscode-cdn.net', 'abc123');
  const d = Object.fromEntries(csp.split('; ').map((p) => { const [k, ...v] = p.split(' '); return [k, v]; }));
  assert.deepEqual(d['default-src'], ["'none'"]);
  assert.deepEqual(d['script-src'], ["'nonce-abc123'"]);
  assert.ok(!csp.includes('unsafe-eval'));
  assert.ok(!csp.includes('http:') && !csp.includes('*'), csp);
  assert.equal(d['connect-src'], undefined); // falls back to 'none': no fetch, no websocket
});

test('a huge graph is cut to the first nodes in execution order; edges to the rest are dropped', () => {
  const nodes = Array.from({ length: 10 }, (_, i) => node(i + 1, `N${i + 1}`, 10 - i));
  const edges = [{ from: 10, to: 9, kind: 'order', reason: 'x', cycle: false }, { from: 1, to: 2, kind: 'order', reason: 'y', cycle: false }];
  const m = toViewModel({ nodes, edges }, 't', 3);
  assert.deepEqual(m.nodes.map((n) => n.position), [1, 2, 3]);
  assert.equal(m.stats.hiddenNodes, 7);
  assert.deepEqual(m.edges.map((e) => e.reason), ['x']);
  assert.equal(m.stats.droppedEdges, 1);
});

test('a workspace graph keeps each system together, each in its own execution order', () => {
  const sys = (n: GraphNode, system: string) => ({ ...n, system });
  const m = toViewModel({
    nodes: [sys(node(1, 'Notify[c]', 1), 'puppet'), sys(node(2, 'reports: hello', 1), 'cfengine'), sys(node(3, 'Notify[d]', 2), 'puppet'),
      sys(node(4, 'bundle agent main', null), 'cfengine'), sys(node(5, 'Notify[a]', null, true), 'puppet')],
    edges: [],
  }, 'workspace');
  assert.deepEqual(m.nodes.map((n) => n.label), ['Notify[c]', 'Notify[d]', 'Notify[a]', 'reports: hello', 'bundle agent main']);
});
