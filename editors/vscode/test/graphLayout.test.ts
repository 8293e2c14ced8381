import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bigGraphFocus, filterView, initiallyFolded, nodeWidth, shortenClassNames, toViewModel, wrappedLayout, type GraphViewModel } from '../src/graphModel';
import type { GraphNode, GraphResult } from '../src/protocol';

const r = (line: number) => ({ start: { line, character: 0 }, end: { line, character: 5 } });
const node = (id: number, label: string, position: number | null, extra: Partial<GraphNode> = {}): GraphNode =>
  ({ id, label, kind: 'resource', system: 'puppet', uri: 'file:///ws/init.pp', range: r(id), position, cycle: false, ...extra });

/** n classes of one namespace, each holding two ordered resources, chained by a relationship */
function modules(n: number): GraphResult {
  const nodes: GraphNode[] = [];
  const edges: GraphResult['edges'] = [];
  let pos = 1;
  for (let i = 0; i < n; i++) {
    const c = 1000 + i;
    nodes.push(node(c, `Class[Apache::Mod::M${i}]`, null, { kind: 'class', container: true }));
    nodes.push(node(2 * i, `File[m${i}.load]`, pos++, { parent: c }));
    nodes.push(node(2 * i + 1, `File[m${i}.conf]`, pos++, { parent: c }));
    edges.push({ from: 2 * i, to: 2 * i + 1, kind: 'order', reason: 'require', cycle: false });
    if (i > 0) edges.push({ from: 2 * i - 1, to: 2 * i, kind: 'order', reason: 'before', cycle: false });
  }
  return { nodes, edges };
}

function extent(m: GraphViewModel, pos: Map<string, { x: number; y: number }>) {
  let x1 = Infinity, y1 = Infinity, x2 = -Infinity, y2 = -Infinity;
  for (const n of m.nodes) {
    const p = pos.get(n.id);
    if (!p) continue;
    x1 = Math.min(x1, p.x - nodeWidth(n.display) / 2); x2 = Math.max(x2, p.x + nodeWidth(n.display) / 2);
    y1 = Math.min(y1, p.y - 15); y2 = Math.max(y2, p.y + 15);
  }
  return { w: x2 - x1, h: y2 - y1 };
}

test('a small graph opens unfolded; a big one with its classes folded, the focus\'s open', () => {
  assert.equal(initiallyFolded(toViewModel(modules(5), 'init.pp')).size, 0);
  const big = toViewModel({ ...modules(40), focus: 6 }, 'init.pp');
  const folded = initiallyFolded(big);
  assert.equal(folded.size, 39);
  assert.equal(folded.has('n1003'), false); // File[m3.load]'s class
});

test('folded classes of one namespace say it once, come where their first step runs, and are not "unordered"', () => {
  const m = toViewModel(modules(40), 'init.pp');
  const v = filterView(m, { collapsed: initiallyFolded(m) });
  assert.equal(v.nodes.length, 40);
  const c3 = v.nodes.find((n) => n.id === 'n1003')!;
  assert.equal(c3.display, '…::M3');
  assert.equal(c3.label, 'Class[Apache::Mod::M3]');
  assert.equal(c3.order, 7);
  assert.equal(c3.classes.includes('unordered'), false);
  assert.equal(c3.classes.includes('collapsed'), true);
});

test('shortenClassNames keeps a class that is the namespace itself whole', () => {
  const m = toViewModel({ nodes: [node(1, 'Class[Apache]', null), node(2, 'Class[Apache::Mod::A]', null), node(3, 'Class[Apache::Mod::B]', null), node(4, 'Class[Apache::Params]', null)], edges: [] }, 't');
  shortenClassNames(m.nodes);
  assert.deepEqual(m.nodes.map((n) => n.display), ['Apache', '…::Mod::A', '…::Mod::B', '…::Params']);
});

test('the wrapped layout reads in execution order, column after column, the shape of the view', () => {
  const m = toViewModel(modules(50), 'init.pp');
  const v = filterView(m, { collapsed: initiallyFolded(m) });
  const opts = { width: 1000, height: 650, rowHeight: 38, gap: 24, framePad: 14, frameTitle: 18 };
  const pos = wrappedLayout(v, opts);
  assert.equal(pos.size, 50);
  // reading order: down a column, then the next column to the right
  const ordered = [...v.nodes].sort((a, b) => (a.order ?? 0) - (b.order ?? 0)).map((n) => pos.get(n.id)!);
  for (let i = 1; i < ordered.length; i++) {
    const [a, b] = [ordered[i - 1], ordered[i]];
    assert.ok(b.x > a.x || (b.x === a.x && b.y > a.y), `step ${i} goes back: ${JSON.stringify([a, b])}`);
  }
  // not a line 16,000 px long: the aspect ratio stays near the view's
  const e = extent(v, pos);
  const ratio = e.w / e.h;
  assert.ok(ratio > 0.5 && ratio < 4, `aspect ${e.w} x ${e.h}`);
  // at fit, 12 px labels stay at least 11 px
  const zoom = Math.min(opts.width / e.w, opts.height / e.h);
  assert.ok(12 * zoom >= 11, `fit zoom ${zoom}`);
});

test('an open class keeps what it holds together, inside its frame', () => {
  const m = toViewModel(modules(40), 'init.pp');
  const collapsed = initiallyFolded(m);
  collapsed.delete('n1010');
  const v = filterView(m, { collapsed });
  const pos = wrappedLayout(v, { width: 1000, height: 650, rowHeight: 38, gap: 24, framePad: 14, frameTitle: 18 });
  assert.equal(pos.has('n1010'), false); // its frame is drawn around its members
  const a = pos.get('n20')!, b = pos.get('n21')!;
  assert.equal(a.x === b.x || Math.abs(a.y - b.y) < 1, true);
  assert.ok(Math.abs(a.x - b.x) + Math.abs(a.y - b.y) < 200, JSON.stringify([a, b]));
});

test('a graph too big to read whole opens around the first step of its own file', () => {
  const m = toViewModel(modules(100), 'init.pp');
  assert.equal(bigGraphFocus(m, 150), 'n0');
  const v = filterView(m, { collapsed: initiallyFolded(m) });
  assert.equal(bigGraphFocus(v, 150), undefined);
});
