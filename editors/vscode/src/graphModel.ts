// ordering/graph result -> what the webview draws. Pure logic, unit-tested.
import type { GraphResult, Range } from './protocol';

export interface ViewNode {
  /** cytoscape element id ("n" + server id) */
  id: string;
  /** text drawn in the node: "3. Notify[a]" */
  display: string;
  /** full label (tooltip, list) */
  label: string;
  position: number | null;
  kind: string;
  system: string;
  uri: string;
  /** file name only, for the list */
  file: string;
  range: Range;
  cycle: boolean;
  classes: string;
  /** element id of the container drawn around it, if any */
  parent?: string;
  container: boolean;
  /** where it comes in execution order when it has no position of its own: a folded container
   *  comes where the first step it holds runs (set by filterView) */
  order?: number;
}

export interface ViewEdge {
  id: string;
  source: string;
  target: string;
  kind: string;
  reason: string;
  cycle: boolean;
  classes: string;
}

export interface GraphViewModel {
  title: string;
  /** element id of the node the view centres on (the server's focus), if any */
  focus?: string;
  /** in execution order: ordered nodes by position, then the nodes without a position */
  nodes: ViewNode[];
  edges: ViewEdge[];
  stats: { nodes: number; edges: number; ordered: number; cycleNodes: number; droppedEdges: number; hiddenNodes: number; folded?: number };
}

/** More nodes than this and the layout would freeze the view: the first ones in execution order are drawn. */
export const MAX_NODES = 1500;

export const MAX_DISPLAY = 48;

export function truncate(s: string, max = MAX_DISPLAY): string {
  const chars = Array.from(s); // never split a surrogate pair
  return chars.length <= max ? s : chars.slice(0, max - 1).join('') + '…';
}

export function baseName(uri: string): string {
  const noQuery = uri.split(/[?#]/)[0];
  const last = noQuery.split('/').filter(Boolean).pop() || uri;
  try { return decodeURIComponent(last); } catch { return last; }
}

function cls(...names: (string | false | undefined)[]): string {
  return names.filter(Boolean).map((n) => String(n).replace(/[^A-Za-z0-9_-]/g, '_')).join(' ');
}

export function toViewModel(result: GraphResult | null | undefined, title: string, maxNodes = MAX_NODES): GraphViewModel {
  const nodesIn = Array.isArray(result?.nodes) ? result!.nodes : [];
  const edgesIn = Array.isArray(result?.edges) ? result!.edges : [];

  // execution order: position ascending (stable), then the unordered ones in server order; in a
  // workspace graph each system has its own runs, so the systems stay apart (first seen first)
  const sysRank = new Map<string, number>();
  for (const n of nodesIn) if (!sysRank.has(String(n.system))) sysRank.set(String(n.system), sysRank.size);
  const indexed = nodesIn.map((n, i) => ({ n, i }));
  indexed.sort((a, b) => {
    const sa = sysRank.get(String(a.n.system))!, sb = sysRank.get(String(b.n.system))!;
    if (sa !== sb) return sa - sb;
    const pa = a.n.position, pb = b.n.position;
    const ha = typeof pa === 'number', hb = typeof pb === 'number';
    if (ha && hb) return (pa as number) - (pb as number) || a.i - b.i;
    if (ha !== hb) return ha ? -1 : 1;
    return a.i - b.i;
  });

  const seen = new Set<number>();
  const nodes: ViewNode[] = [];
  let hidden = 0;
  for (const { n } of indexed) {
    if (seen.has(n.id)) continue; // a duplicate id would break cytoscape
    if (nodes.length >= maxNodes) { hidden++; continue; }
    seen.add(n.id);
    const position = typeof n.position === 'number' ? n.position : null;
    const label = String(n.label ?? '');
    nodes.push({
      id: 'n' + n.id,
      display: truncate(position !== null ? `${position}. ${label}` : label),
      label,
      position,
      kind: String(n.kind ?? ''),
      system: String(n.system ?? ''),
      uri: String(n.uri ?? ''),
      file: baseName(String(n.uri ?? '')),
      range: n.range,
      cycle: !!n.cycle,
      classes: cls(n.cycle && 'cycle', position === null && 'unordered', n.system && 'sys-' + n.system, n.container && 'container'),
      parent: typeof n.parent === 'number' ? 'n' + n.parent : undefined,
      container: !!n.container,
    });
  }
  // a container that is not drawn cannot hold anything
  for (const n of nodes) if (n.parent && !seen.has(Number(n.parent.slice(1)))) n.parent = undefined;

  // edges: drop dangling ones, merge duplicates (same from/to/kind), keep every reason
  const merged = new Map<string, ViewEdge>();
  let dropped = 0;
  for (const e of edgesIn) {
    if (!seen.has(e.from) || !seen.has(e.to)) { dropped++; continue; }
    const key = `${e.from}-${e.to}-${e.kind}`;
    const prev = merged.get(key);
    if (prev) { mergeEdge(prev, e.reason, e.cycle); continue; }
    merged.set(key, {
      id: 'e' + merged.size,
      source: 'n' + e.from,
      target: 'n' + e.to,
      kind: String(e.kind ?? ''),
      reason: String(e.reason ?? ''),
      cycle: !!e.cycle,
      classes: cls('kind-' + e.kind, e.cycle && 'cycle'),
    });
  }
  const edges = [...merged.values()];
  const focus = typeof result?.focus === 'number' && seen.has(result.focus) ? 'n' + result.focus : undefined;
  return { title, focus, nodes, edges, stats: statsOf(nodes, edges, dropped, hidden) };
}

/** Another edge between the same two nodes with the same kind: one line, every reason. */
function mergeEdge(prev: ViewEdge, reason: string, cycle: boolean) {
  if (reason && !prev.reason.split(', ').includes(reason)) prev.reason += (prev.reason ? ', ' : '') + reason;
  if (cycle && !prev.cycle) { prev.cycle = true; prev.classes = cls('kind-' + prev.kind, 'cycle'); }
}

function statsOf(nodes: ViewNode[], edges: ViewEdge[], droppedEdges: number, hiddenNodes: number): GraphViewModel['stats'] {
  return {
    nodes: nodes.length,
    edges: edges.length,
    ordered: nodes.filter((n) => n.position !== null).length,
    cycleNodes: nodes.filter((n) => n.cycle).length,
    droppedEdges,
    hiddenNodes,
  };
}

/** What the user narrowed the view to. */
export interface ViewFilter {
  /** centre node (element id) and how many relationships away to show (undirected); no focus: all */
  focus?: string;
  hops?: number;
  /** only the nodes and edges of dependency cycles */
  cyclesOnly?: boolean;
  /** containers drawn as one node: what they hold is folded into them */
  collapsed?: ReadonlySet<string>;
}

/** The part of the model a filter keeps: nodes, the edges between them (merged again when
 *  collapsing folds several onto one pair), containers of what is kept. Stats describe the result. */
export function filterView(model: GraphViewModel, f: ViewFilter): GraphViewModel {
  const byId = new Map(model.nodes.map((n) => [n.id, n]));
  let keep = new Set(model.nodes.map((n) => n.id));
  if (f.cyclesOnly) keep = new Set(model.nodes.filter((n) => n.cycle).map((n) => n.id));
  const ancestorOf = (c: string, x: string) => {
    for (let p = byId.get(x)?.parent; p && byId.has(p); p = byId.get(p)!.parent) if (p === c) return true;
    return false;
  };
  if (f.focus && byId.has(f.focus) && f.hops !== undefined && f.hops >= 0) {
    const near = new Set(hopDistances(model, f.focus, f.hops, f.cyclesOnly).keys());
    keep = new Set([...keep].filter((id) => near.has(id)));
    keep.add(f.focus);
  }
  // containers of what is kept stay, as frames around it
  for (const id of [...keep]) {
    for (let p = byId.get(id)?.parent; p && byId.has(p); p = byId.get(p)!.parent) keep.add(p);
  }
  // folding: a node inside a collapsed container is drawn as that container
  const owner = (id: string): string => {
    let top = id;
    for (let p = byId.get(id)?.parent; p && byId.has(p); p = byId.get(p)!.parent) if (f.collapsed?.has(p)) top = p;
    return top;
  };
  // a container comes where the first step it holds runs
  const first = new Map<string, number>();
  for (const n of model.nodes) {
    if (n.position === null) continue;
    for (let p = n.parent; p && byId.has(p); p = byId.get(p)!.parent) first.set(p, Math.min(first.get(p) ?? Infinity, n.position));
  }
  const nodes: ViewNode[] = [];
  for (const n of model.nodes) {
    if (!keep.has(n.id) || owner(n.id) !== n.id) continue;
    const folded = f.collapsed?.has(n.id);
    const order = n.position ?? first.get(n.id);
    // a container is "not ordered" only when nothing it holds runs
    const classes = n.classes.split(' ').filter((c) => !(c === 'unordered' && order !== undefined));
    nodes.push({ ...n, order, classes: cls(...classes, folded && 'collapsed') });
  }
  shortenClassNames(nodes);
  const drawn = new Set(nodes.map((n) => n.id));
  // an edge between a node and a container around it is the containment the frame already draws
  const within = (x: string, c: string) => ancestorOf(c, x);
  const merged = new Map<string, ViewEdge>();
  let dropped = 0;
  for (const e of model.edges) {
    if (f.cyclesOnly && !e.cycle) continue;
    if (!keep.has(e.source) || !keep.has(e.target)) { dropped++; continue; }
    const source = owner(e.source), target = owner(e.target);
    if (source === target || !drawn.has(source) || !drawn.has(target)) continue;
    if (!e.cycle && (within(source, target) || within(target, source))) continue;
    const key = `${source}-${target}-${e.kind}`;
    const prev = merged.get(key);
    if (prev) { mergeEdge(prev, e.reason, e.cycle); continue; }
    merged.set(key, { ...e, id: source === e.source && target === e.target ? e.id : `${e.id}f`, source, target });
  }
  const edges = [...merged.values()];
  const folded = model.nodes.filter((n) => keep.has(n.id) && owner(n.id) !== n.id).length;
  return {
    title: model.title,
    focus: model.focus && drawn.has(model.focus) ? model.focus : undefined,
    nodes,
    edges,
    stats: { ...statsOf(nodes, edges, model.stats.droppedEdges + dropped, model.stats.hiddenNodes + (model.nodes.length - nodes.length - folded)), folded },
  };
}

/** Classes drawn in a graph mostly share a namespace (apache::mod::ssl, apache::mod::php...):
 *  their nodes say `Class[...]` and the shared part once fewer, "…::Mod::Ssl" (the list and
 *  the tooltip keep the full name), so a hundred of them fit the view with readable labels. */
export function shortenClassNames(nodes: ViewNode[]): void {
  const names = new Map<ViewNode, string[]>();
  for (const n of nodes) {
    const m = /^Class\[(.+)\]$/.exec(n.label);
    if (m) names.set(n, m[1].split('::'));
  }
  const many = [...names.values()].filter((segs) => segs.length > 1);
  let prefix: string[] | undefined;
  if (many.length >= 3) {
    prefix = many[0].slice(0, -1);
    for (const segs of many) {
      let i = 0;
      while (i < prefix.length && i < segs.length - 1 && prefix[i] === segs[i]) i++;
      prefix = prefix.slice(0, i);
    }
  }
  for (const [n, segs] of names) {
    const shared = prefix && prefix.length > 0 && segs.length > prefix.length && prefix.every((p, i) => segs[i] === p);
    const name = shared ? '…::' + segs.slice(prefix!.length).join('::') : segs.join('::');
    n.display = truncate(n.position !== null ? `${n.position}. ${name}` : name);
  }
}

/** How many relationships away from focus each node is, up to maxHops (either direction). A node's
 *  container is at no distance from it (what orders a resource is often written on its class;
 *  only the innermost: the outer ones hold half the graph), and the edges between a node and its
 *  own containers are the containment itself, not a relationship. */
export function hopDistances(model: GraphViewModel, focus: string, maxHops = Infinity, cyclesOnly = false): Map<string, number> {
  const byId = new Map(model.nodes.map((n) => [n.id, n]));
  const ancestorOf = (c: string, x: string) => {
    for (let p = byId.get(x)?.parent; p && byId.has(p); p = byId.get(p)!.parent) if (p === c) return true;
    return false;
  };
  const adj = new Map<string, string[]>();
  const link = (a: string, b: string) => { if (!adj.has(a)) adj.set(a, []); adj.get(a)!.push(b); };
  for (const e of model.edges) {
    if (cyclesOnly && !e.cycle) continue;
    if (ancestorOf(e.source, e.target) || ancestorOf(e.target, e.source)) continue;
    link(e.source, e.target); link(e.target, e.source);
  }
  // a container's members are one step inside it
  for (const n of model.nodes) if (n.parent === focus) link(focus, n.id);
  const dist = new Map([[focus, 0]]);
  const inner = byId.get(focus)?.parent;
  if (inner && byId.has(inner)) dist.set(inner, 0);
  const queue = [...dist.keys()];
  while (queue.length) {
    const v = queue.shift()!;
    const d = dist.get(v)!;
    if (d >= maxHops) continue;
    for (const w of adj.get(v) ?? []) if (!dist.has(w)) { dist.set(w, d + 1); queue.push(w); }
  }
  return dist;
}

/** Width of a node as the view draws it (12px labels, 8px padding): the layouts need it to keep
 *  labels apart. */
export function nodeWidth(display: string): number {
  return Math.max(20, Array.from(display).length * 7 + 16);
}

export interface NeighbourhoodOptions { rows: number; rowHeight: number; gap: number }

/** Where each node of a focused neighbourhood goes. What runs before the focus is to its left,
 *  what runs after to its right (its ancestors and descendants in the graph; otherwise by
 *  execution position), one band of columns per relationship away, each column in execution
 *  order, wrapped into even columns of at most opts.rows nodes: a hub with fifty neighbours reads as a few short
 *  columns on the side where they run, not one ring the size of the screen. Containers with
 *  members drawn get no position: their frame is drawn around what they hold. */
export function neighbourhoodLayout(model: GraphViewModel, focus: string,
  opts: NeighbourhoodOptions = { rows: 12, rowHeight: 44, gap: 40 }): Map<string, { x: number; y: number }> {
  const out = new Map<string, { x: number; y: number }>();
  const byId = new Map(model.nodes.map((n) => [n.id, n]));
  const f = byId.get(focus);
  if (!f) return out;
  const framing = new Set(model.nodes.filter((n) => n.parent && byId.has(n.parent)).map((n) => n.parent!));
  const dist = hopDistances(model, focus);
  const ancestorOf = (c: string, x: string) => {
    for (let p = byId.get(x)?.parent; p && byId.has(p); p = byId.get(p)!.parent) if (p === c) return true;
    return false;
  };
  // what orders the focus's containers orders the focus (containment itself is not an order)
  const start = [focus];
  for (let p = f.parent; p && byId.has(p); p = byId.get(p)!.parent) start.push(p);
  const reach = (forward: boolean) => {
    const next = new Map<string, string[]>();
    for (const e of model.edges) {
      if (ancestorOf(e.source, e.target) || ancestorOf(e.target, e.source)) continue;
      const [a, b] = forward ? [e.source, e.target] : [e.target, e.source];
      if (!next.has(a)) next.set(a, []);
      next.get(a)!.push(b);
    }
    const seen = new Set(start);
    const stack = [...start];
    while (stack.length) for (const w of next.get(stack.pop()!) ?? []) if (!seen.has(w)) { seen.add(w); stack.push(w); }
    return seen;
  };
  const before = reach(false), after = reach(true);
  const side = (n: ViewNode): number => {
    const b = before.has(n.id), a = after.has(n.id);
    if (b !== a) return b ? -1 : 1;
    if (n.position !== null && f.position !== null) return n.position < f.position ? -1 : 1;
    return 1;
  };
  const far = Math.max(0, ...dist.values()) + 1;
  // the focus's frames, innermost first: what shares one is laid out inside it, the rest beyond
  // its edge, so a frame never seems to hold a node it does not
  const frames = start.slice(1);
  const group = (n: ViewNode): number => {
    const i = frames.findIndex((c) => ancestorOf(c, n.id));
    return i < 0 ? frames.length : i;
  };
  const bands = new Map<string, ViewNode[]>(); // "side:group:distance" -> nodes
  for (const n of model.nodes) {
    if (n.id === focus || framing.has(n.id)) continue;
    const key = `${side(n)}:${group(n)}:${Math.max(1, dist.get(n.id) ?? far)}`;
    if (!bands.has(key)) bands.set(key, []);
    bands.get(key)!.push(n);
  }
  out.set(focus, { x: 0, y: 0 });
  const byPosition = (x: ViewNode, y: ViewNode) => (x.position ?? Infinity) - (y.position ?? Infinity);
  for (const s of [-1, 1]) {
    let offset = nodeWidth(f.display) / 2 + opts.gap;
    for (let g = 0; g <= frames.length; g++) {
      for (let d = 1; d <= far; d++) {
        const band = (bands.get(`${s}:${g}:${d}`) ?? []).sort(byPosition);
        // as many columns as the rows limit needs, filled evenly (49 is 5 x 10, not 4 x 12 + 1)
        const rows = Math.ceil(band.length / Math.ceil(band.length / opts.rows));
        for (let i = 0; i < band.length; i += rows) {
          const col = band.slice(i, i + rows);
          const w = Math.max(...col.map((n) => nodeWidth(n.display)));
          col.forEach((n, k) => out.set(n.id, { x: s * (offset + w / 2), y: (k - (col.length - 1) / 2) * opts.rowHeight }));
          offset += w + opts.gap;
        }
        if (band.length) offset += opts.gap; // a wider gap between one relationship away and two
      }
      offset += opts.gap; // and room for the frame's edge
    }
  }
  return out;
}

export interface WrapOptions {
  /** the drawing area: the layout's aspect ratio follows it */
  width: number;
  height: number;
  rowHeight: number;
  gap: number;
  /** room a drawn container takes around what it holds: padding, and its title on top */
  framePad: number;
  frameTitle: number;
}

/** Where each node goes in a big graph: the execution order read like a newspaper, top to bottom
 *  in columns, the columns left to right (a long chain wraps instead of running off in one line
 *  16,000 px long), as many columns as make the picture the shape of the drawing area. A
 *  container that is open keeps what it holds together, as one block of columns of its own.
 *  Containers with members drawn get no position: their frame is drawn around what they hold. */
export function wrappedLayout(model: GraphViewModel, opts: WrapOptions): Map<string, { x: number; y: number }> {
  const out = new Map<string, { x: number; y: number }>();
  const byId = new Map(model.nodes.map((n) => [n.id, n]));
  const children = new Map<string, ViewNode[]>();
  const top: ViewNode[] = [];
  for (const n of model.nodes) {
    if (n.parent && byId.has(n.parent)) {
      if (!children.has(n.parent)) children.set(n.parent, []);
      children.get(n.parent)!.push(n);
    } else top.push(n);
  }
  const key = (n: ViewNode): number => n.position ?? n.order ?? Infinity;
  const byOrder = (a: ViewNode, b: ViewNode) => key(a) - key(b);

  interface Block { w: number; h: number; place(x: number, y: number): void }
  const leafBlock = (n: ViewNode): Block => ({
    w: nodeWidth(n.display), h: opts.rowHeight,
    place: (x, y) => out.set(n.id, { x: x + nodeWidth(n.display) / 2, y: y + opts.rowHeight / 2 }),
  });
  // blocks into columns at most limit high; a block taller than that gets a column of its own
  const columns = (items: Block[], limit: number): Block => {
    const cols: { items: Block[]; w: number; h: number }[] = [];
    for (const b of items) {
      let c = cols[cols.length - 1];
      if (!c || (c.h + b.h > limit && c.items.length)) { c = { items: [], w: 0, h: 0 }; cols.push(c); }
      c.items.push(b); c.w = Math.max(c.w, b.w); c.h += b.h;
    }
    const w = cols.reduce((t, c) => t + c.w, 0) + opts.gap * Math.max(0, cols.length - 1);
    const h = Math.max(0, ...cols.map((c) => c.h));
    return {
      w, h,
      place: (x, y) => {
        for (const c of cols) {
          let yy = y;
          for (const b of c.items) { b.place(x, yy); yy += b.h; }
          x += c.w + opts.gap;
        }
      },
    };
  };
  const blockOf = (n: ViewNode, limit: number): Block => {
    const kids = children.get(n.id);
    if (!kids) return leafBlock(n);
    const inner = columns(kids.sort(byOrder).map((k) => blockOf(k, limit - 2 * opts.framePad - opts.frameTitle)),
      Math.max(opts.rowHeight, limit - 2 * opts.framePad - opts.frameTitle));
    return {
      w: Math.max(inner.w, nodeWidth(n.display)) + 2 * opts.framePad,
      h: inner.h + 2 * opts.framePad + opts.frameTitle + opts.gap / 2,
      place: (x, y) => inner.place(x + opts.framePad, y + opts.framePad + opts.frameTitle),
    };
  };
  top.sort(byOrder);
  // as many rows as make the picture the drawing area's shape: of the heights tried, the one
  // the view can show largest
  const leaves = model.nodes.filter((n) => !children.has(n.id)).length;
  let best: Block | undefined, bestZoom = -1;
  const tried = new Set<number>();
  for (let rows = 3; rows <= Math.max(3, leaves); rows = Math.max(rows + 1, Math.round(rows * 1.08))) {
    if (tried.has(rows)) continue;
    tried.add(rows);
    const maxH = rows * opts.rowHeight;
    const b = columns(top.map((n) => blockOf(n, maxH)), maxH);
    const zoom = Math.min(opts.width / Math.max(1, b.w), opts.height / Math.max(1, b.h));
    if (zoom > bestZoom) { best = b; bestZoom = zoom; }
    if (b.h > opts.height * 4 && b.w < opts.width) break; // taller and taller: no better one ahead
  }
  best?.place(0, 0);
  return out;
}

/** A graph of more nodes than this opens with its containers folded. */
export const FOLD_ABOVE = 30;

/** Which containers start folded: none in a small graph (FOLD_ABOVE nodes or fewer: everything
 *  reads at once); in a bigger one every container (a class of a real module holds dozens of
 *  resources), except those around the focus and those in a cycle, which are what the user came
 *  to see. A click unfolds one. */
export function initiallyFolded(model: GraphViewModel, foldAbove = FOLD_ABOVE): Set<string> {
  if (model.nodes.length <= foldAbove) return new Set();
  const byId = new Map(model.nodes.map((n) => [n.id, n]));
  const open = new Set<string>();
  for (let p = model.focus; p; p = byId.get(p)?.parent) open.add(p);
  for (const n of model.nodes) if (n.cycle) for (let p = n.parent; p; p = byId.get(p)?.parent) open.add(p);
  return new Set(model.nodes.filter((n) => n.container && !open.has(n.id)).map((n) => n.id));
}

/** The node a big graph opens around: none when the (folded) view has at most max nodes; else
 *  the first step in execution order declared in the file the graph is of (its title), else the
 *  first step. */
export function bigGraphFocus(view: GraphViewModel, max: number): string | undefined {
  if (view.nodes.length <= max) return undefined;
  const ordered = view.nodes.filter((n) => n.position !== null);
  return (ordered.find((n) => n.file === view.title) ?? ordered[0] ?? view.nodes[0])?.id;
}

/** Nodes whose label or file holds the text (case-insensitive), in the model's order. */
export function searchNodes(model: GraphViewModel, text: string): string[] {
  const t = text.trim().toLowerCase();
  if (!t) return [];
  return model.nodes.filter((n) => n.label.toLowerCase().includes(t) || n.file.toLowerCase().includes(t)).map((n) => n.id);
}

/** The shortest chain of edges from a to b, else from b to a (the order between them either way);
 *  null when neither reaches the other. */
export function shortestPath(model: GraphViewModel, a: string, b: string): { nodes: string[]; edges: string[] } | null {
  const out = new Map<string, ViewEdge[]>();
  for (const e of model.edges) { if (!out.has(e.source)) out.set(e.source, []); out.get(e.source)!.push(e); }
  const walk = (from: string, to: string) => {
    const via = new Map<string, ViewEdge | null>([[from, null]]);
    const queue = [from];
    while (queue.length) {
      const v = queue.shift()!;
      if (v === to) {
        const nodes = [to], edges: string[] = [];
        for (let e = via.get(to); e; e = via.get(e.source)) { edges.unshift(e.id); nodes.unshift(e.source); }
        return { nodes, edges };
      }
      for (const e of out.get(v) ?? []) if (!via.has(e.target)) { via.set(e.target, e); queue.push(e.target); }
    }
    return null;
  };
  if (a === b) return null;
  return walk(a, b) ?? walk(b, a);
}

/**
 * Content Security Policy of the graph webview: nothing from the network, no inline or eval'd
 * script, only our bundled script (by nonce) and stylesheet (by the webview's own origin).
 * Inline style attributes are allowed: cytoscape sizes its canvases with them.
 */
export function graphCsp(cspSource: string, nonce: string): string {
  return [
    `default-src 'none'`,
    `script-src 'nonce-${nonce}'`,
    `style-src ${cspSource} 'unsafe-inline'`,
    `img-src ${cspSource} data:`,
    `font-src ${cspSource}`,
    // the layout worker, started from a blob of the extension's own script
    `worker-src blob:`,
  ].join('; ');
}
