// Runs inside the webview: draws the graph with cytoscape + dagre (bundled, no network).
import cytoscape from 'cytoscape';
// @ts-ignore: no types published for cytoscape-dagre
import dagre from 'cytoscape-dagre';
import { bigGraphFocus, filterView, initiallyFolded, neighbourhoodLayout, searchNodes, shortestPath, wrappedLayout, type GraphViewModel, type ViewFilter, type ViewNode } from '../graphModel';
import type { LayoutRequest, LayoutResult } from './layoutProtocol';

declare function acquireVsCodeApi(): { postMessage(m: unknown): void };

cytoscape.use(dagre);
const vscode = acquireVsCodeApi();
let cy: cytoscape.Core | undefined;

function themeColor(name: string, fallback: string): string {
  const v = getComputedStyle(document.body).getPropertyValue(name).trim();
  return v || fallback;
}

function revealNode(n: ViewNode) {
  vscode.postMessage({ type: 'reveal', uri: n.uri, range: n.range });
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, text: string, cls?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

function renderList(model: GraphViewModel) {
  const list = document.getElementById('list')!;
  const unordered = document.getElementById('unordered')!;
  list.replaceChildren();
  unordered.replaceChildren();
  for (const n of model.nodes) {
    const li = el('li', '', n.cycle ? 'cycle' : '');
    const a = el('a', n.label);
    a.href = '#';
    a.title = `${n.kind} in ${n.file}`;
    a.dataset.node = n.id;
    a.addEventListener('click', (ev) => { ev.preventDefault(); revealNode(n); });
    li.appendChild(a);
    li.appendChild(el('span', ` ${n.file}:${n.range.start.line + 1}`, 'where'));
    if (n.position !== null) { li.value = n.position; list.appendChild(li); } else unordered.appendChild(li);
  }
  document.getElementById('unordered-box')!.style.display = unordered.children.length ? '' : 'none';
}

// what the user narrowed the view to; reset when a new graph arrives with a focus of its own
const state: { full?: GraphViewModel; filter: ViewFilter; path: string[]; search: string; serial: number; searched?: { hits: number; zoom: number } } = { filter: {}, path: [], search: '', serial: 0 };

function byIdOf(model: GraphViewModel) { return new Map(model.nodes.map((n) => [n.id, n])); }

function input<T extends HTMLElement>(id: string): T | null { return document.getElementById(id) as T | null; }

/** A new answer from the server: a graph the user asked for starts over (centred on the server's
 *  focus, if any); a refresh after an edit keeps what the user chose. */
function receive(model: GraphViewModel, reset: boolean) {
  const fresh = reset || !state.full || state.full.title !== model.title;
  state.full = model;
  state.serial++;
  if (fresh) {
    state.filter = { focus: model.focus, hops: model.focus ? 1 : undefined, cyclesOnly: false, collapsed: initiallyFolded(model) };
    // too big to read whole even folded: start around the file's first step, a few hops out
    const big = !model.focus && bigGraphFocus(filterView(model, state.filter), BIG_GRAPH);
    if (big) state.filter = { ...state.filter, focus: big, hops: BIG_GRAPH_HOPS };
    state.path = [];
  }
  syncControls();
  renderList(model);
  draw();
}

/** Folded, a graph with more nodes than this opens on a neighbourhood instead (BIG_GRAPH_HOPS
 *  relationships around its first step); "everything" in the hops box shows it all. */
const BIG_GRAPH = 150;
const BIG_GRAPH_HOPS = 2;
/** Above this many nodes the whole graph is laid out as the execution order wrapped into columns
 *  (wrappedLayout); below, dagre's layers read best. */
const WRAP_MIN = 30;

function syncControls() {
  const hops = input<HTMLSelectElement>('hops');
  if (hops) {
    hops.disabled = !state.filter.focus;
    hops.value = state.filter.hops === undefined ? 'all' : String(state.filter.hops);
  }
  const cycles = input<HTMLInputElement>('cycles');
  if (cycles) cycles.checked = !!state.filter.cyclesOnly;
  const focus = input<HTMLSpanElement>('focus');
  if (focus) {
    const n = state.filter.focus ? byIdOf(state.full!).get(state.filter.focus) : undefined;
    focus.textContent = n ? `around ${n.label}` : '';
    focus.title = n ? 'Double-click another node to move the focus; "everything" shows the whole graph' : '';
  }
}

function draw() {
  const full = state.full;
  if (!full) return;
  const model = filterView(full, state.filter);
  document.getElementById('message')!.textContent = '';
  document.getElementById('title')!.textContent = `Execution graph: ${model.title}`;
  const byId = byIdOf(model);
  const elements = [
    ...model.nodes.map((n) => ({
      data: { id: n.id, label: n.label, display: n.display, ...(n.parent && byId.has(n.parent) ? { parent: n.parent } : {}) },
      classes: n.classes + (n.id === model.focus || n.id === state.filter.focus ? ' focus' : ''),
    })),
    ...model.edges.map((e) => ({ data: { id: e.id, source: e.source, target: e.target, reason: e.reason }, classes: e.classes })),
  ];
  const layout = layoutFor(model);
  if (worker && layout.name === 'dagre' && model.nodes.length >= WORKER_MIN_NODES) {
    // the layout runs in the worker; the last request wins
    const id = ++layoutSerial;
    const req: LayoutRequest = { id, elements: elements.map((e) => ({ data: e.data })) };
    pending = (res) => {
      if (res.id !== layoutSerial) return;
      if (res.error) { mount(model, elements, layout); return; }
      mount(model, elements, { name: 'preset', positions: res.positions, fit: true, padding: 20 } as cytoscape.LayoutOptions, 'worker');
    };
    document.getElementById('stats')!.textContent = statsText(model) + ' · laying out…';
    worker.postMessage(req);
    return;
  }
  mount(model, elements, layout);
}

/** What the header says of the graph drawn. */
function statsText(model: GraphViewModel): string {
  const s = model.stats;
  const parts = [];
  if (s.folded) parts.push(`${s.folded} folded into their classes: click one to open it`);
  if (s.hiddenNodes) parts.push(`${s.hiddenNodes} not shown${state.full?.stats.hiddenNodes ? `: the first ${state.full.stats.nodes} in execution order are drawn` : ''}`);
  return `${s.nodes} nodes, ${s.edges} edges${s.cycleNodes ? `, ${s.cycleNodes} in cycles` : ''}` + (parts.length ? ` (${parts.join('; ')})` : '');
}

/** Graphs this big are laid out in the worker (smaller ones take less time than the round trip). */
const WORKER_MIN_NODES = 100;
let worker: Worker | undefined;
let layoutSerial = 0;
let pending: ((r: LayoutResult) => void) | undefined;

let workerTrouble = '';

function startWorker(code: string) {
  try {
    worker = new Worker(URL.createObjectURL(new Blob([code], { type: 'text/javascript' })));
    worker.onmessage = (ev: MessageEvent<LayoutResult>) => pending?.(ev.data);
    worker.onerror = (e) => { workerTrouble = `worker error: ${e.message}`; worker = undefined; draw(); }; // lay out here instead
  } catch (e) { workerTrouble = `no worker: ${e}`; worker = undefined; }
}

function mount(model: GraphViewModel, elements: cytoscape.ElementDefinition[], layout: cytoscape.LayoutOptions, laidOutBy = 'view') {
  const fg = themeColor('--vscode-editor-foreground', '#333');
  const bg = themeColor('--vscode-editor-background', '#fff');
  const nodeBg = themeColor('--vscode-editorWidget-background', '#f3f3f3');
  const border = themeColor('--vscode-editorWidget-border', '#888');
  const red = themeColor('--vscode-errorForeground', '#e51400');
  const blue = themeColor('--vscode-textLink-foreground', '#3794ff');
  const orange = themeColor('--vscode-editorWarning-foreground', '#bf8803');
  const hl = themeColor('--vscode-editor-findMatchHighlightBackground', '#ea5c0055');
  const byId = byIdOf(model);
  document.getElementById('stats')!.textContent = statsText(model);
  cy?.destroy();
  // Preset positions go into the elements: nodes moved by a preset layout after they were made
  // kept stale bounding boxes in cytoscape 3.34 (every edge culled, fit zoomed onto one node).
  const preset = layout.name === 'preset' ? (layout as cytoscape.PresetLayoutOptions).positions as Record<string, cytoscape.Position> | undefined : undefined;
  if (preset) layout = { name: 'grid', fit: false } as cytoscape.LayoutOptions;
  cy = cytoscape({
    container: document.getElementById('cy'),
    elements,
    // the wheel is ours (see wheelZoom): cytoscape's step depends on the browser's deltas and
    // was under 1% a notch in VS Code's webview
    userZoomingEnabled: false,
    minZoom: 0.05,
    maxZoom: 4,
    style: [
      { selector: 'node', style: {
        shape: 'round-rectangle', 'background-color': nodeBg, 'border-width': 1, 'border-color': border,
        label: 'data(display)', color: fg, 'font-size': 12, 'text-valign': 'center', 'text-halign': 'center',
        width: 'label', height: 'label', padding: '6px', 'text-wrap': 'none',
      } },
      // a container drawn around what it holds: its name on top, a click folds it
      { selector: ':parent', style: {
        'background-opacity': 0.25, 'border-style': 'solid', 'text-valign': 'top', 'text-halign': 'center',
        'font-weight': 'bold', padding: '14px',
      } },
      { selector: 'node.collapsed', style: { 'border-style': 'double', 'border-width': 4 } },
      { selector: 'node.unordered', style: { 'border-style': 'dashed' } },
      { selector: 'node.cycle', style: { 'border-color': red, 'border-width': 3, color: red } },
      { selector: 'node.focus', style: { 'border-color': blue, 'border-width': 3 } },
      { selector: 'node.match', style: { 'background-color': hl, 'border-width': 3 } },
      { selector: '.faded', style: { opacity: 0.25 } },
      { selector: 'edge', style: {
        width: 1.5, 'line-color': fg, 'target-arrow-color': fg, 'target-arrow-shape': 'triangle', 'curve-style': 'bezier',
        label: '', 'font-size': 10, color: fg, 'text-background-color': bg, 'text-background-opacity': 1,
        'text-rotation': 'autorotate',
      } },
      // edge labels only where they say something: hovered, on a path, on a cycle
      { selector: 'edge.hover, edge.on-path, edge.cycle', style: { label: 'data(reason)' } },
      { selector: 'edge.kind-refresh', style: { 'line-style': 'dashed', 'line-color': orange, 'target-arrow-color': orange } },
      { selector: 'edge.kind-auto', style: { 'line-style': 'dotted' } },
      { selector: 'edge.kind-call', style: { 'line-color': blue, 'target-arrow-color': blue } },
      { selector: 'edge.kind-reference', style: { 'line-style': 'dotted', opacity: 0.6 } },
      { selector: 'edge.cycle', style: { 'line-color': red, 'target-arrow-color': red, width: 3, color: red } },
      { selector: '.on-path', style: { 'border-color': blue, 'line-color': blue, 'target-arrow-color': blue, width: 4, 'border-width': 4 } },
      { selector: ':selected', style: { 'overlay-opacity': 0.15 } },
      // many edges: straight and light, those of the node under the mouse or selected in full
      { selector: 'edge.many', style: { 'curve-style': 'straight', opacity: 0.35 } },
      { selector: 'edge.many.hl, edge.many.cycle, edge.many.on-path', style: { opacity: 1, width: 2.5 } },
      { selector: 'edge.many.faded', style: { opacity: 0.08 } },
    ],
    layout,
  });
  // fit once the layout is done and the panel has its final size; a small graph would be blown
  // up to fill the view: cap the zoom at 1.5
  const fit = () => {
    if (!cy) return;
    cy.resize();
    cy.fit(undefined, 20);
    if (cy.zoom() > 1.5) { cy.zoom(1.5); cy.center(); }
  };
  cy.one('layoutstop', () => requestAnimationFrame(fit));
  if (preset) cy.nodes().positions((n) => preset[n.id()] ?? n.position());
  fit();
  cy.on('mouseover', 'edge', (ev) => ev.target.addClass('hover'));
  cy.on('mouseout', 'edge', (ev) => ev.target.removeClass('hover'));
  if (model.edges.length > 60) {
    cy.edges().addClass('many');
    cy.on('mouseover', 'node', (ev) => ev.target.connectedEdges().addClass('hl'));
    cy.on('mouseout', 'node', (ev) => { if (!ev.target.selected()) ev.target.connectedEdges().removeClass('hl'); });
    cy.on('select', 'node', (ev) => ev.target.connectedEdges().addClass('hl'));
    cy.on('unselect', 'node', (ev) => ev.target.connectedEdges().removeClass('hl'));
  }
  cy.on('tap', 'node', (ev) => {
    const id = ev.target.id();
    const n = byId.get(id);
    const oe = ev.originalEvent as MouseEvent | undefined;
    if (oe?.shiftKey) pickPathEnd(id); // the path between two nodes
    else if (n?.container) toggleCollapse(id); // a container folds into one node and back
    else if (n) revealNode(n);
  });
  cy.on('dbltap', 'node', (ev) => {
    state.filter = { ...state.filter, focus: ev.target.id(), hops: state.filter.hops ?? 1 };
    syncControls();
    draw();
  });
  // zoom to the matches once the fit above is done
  const zoomToMatches = searchAfterDraw;
  searchAfterDraw = false;
  applySearch(false);
  if (zoomToMatches) requestAnimationFrame(() => requestAnimationFrame(() => applySearch(true)));
  applyPath();
  (window as unknown as { cy: cytoscape.Core; graphView: unknown }).cy = cy; // handy from devtools and the end-to-end test
  (window as unknown as { graphView: unknown }).graphView = { filter: state.filter, path: state.path, model, serial: state.serial, laidOutBy, workerTrouble, searched: state.searched };
  document.body.dataset.state = 'drawn';
}

/** The whole graph flows top to bottom in execution order (dagre, in the worker when big); a
 *  neighbourhood is laid out around its centre, before it on the left and after it on the right
 *  (neighbourhoodLayout: linear, so it runs here). */
let wrapped = false;
function layoutFor(model: GraphViewModel): cytoscape.LayoutOptions {
  wrapped = false;
  const focus = state.filter.focus;
  if (!focus || !model.nodes.some((n) => n.id === focus)) {
    if (model.nodes.length > WRAP_MIN) {
      const box = document.getElementById('cy')!.getBoundingClientRect();
      wrapped = true;
      laidOutFor = { w: box.width, h: box.height };
      // the box less the fit's padding; rows 32 px apart for 12 px labels with 6 px padding
      const positions = Object.fromEntries(wrappedLayout(model, {
        width: (box.width || 1000) - 40, height: (box.height || 700) - 40, rowHeight: 32, gap: 20, framePad: 14, frameTitle: 18,
      }));
      return { name: 'preset', positions, fit: true, padding: 20 } as cytoscape.LayoutOptions;
    }
    return { name: 'dagre', rankDir: 'TB', nodeSep: 30, rankSep: 50, fit: true, padding: 20 } as cytoscape.LayoutOptions;
  }
  const positions = Object.fromEntries(neighbourhoodLayout(model, focus));
  return { name: 'preset', positions, fit: true, padding: 20 } as cytoscape.LayoutOptions;
}

function toggleCollapse(id: string) {
  const c = new Set(state.filter.collapsed ?? []);
  if (c.has(id)) c.delete(id); else c.add(id);
  state.filter = { ...state.filter, collapsed: c };
  draw();
}

/** Shift-click two nodes: the chain of relationships between them is highlighted. */
function pickPathEnd(id: string) {
  state.path = state.path.length >= 2 ? [id] : [...state.path.filter((x) => x !== id), id];
  applyPath();
}

function applyPath() {
  if (!cy) return;
  cy.elements().removeClass('on-path');
  const box = input<HTMLSpanElement>('path');
  const full = filterView(state.full!, state.filter);
  const label = (id: string) => full.nodes.find((n) => n.id === id)?.label ?? id;
  if (state.path.length < 2) {
    for (const id of state.path) cy.getElementById(id).addClass('on-path');
    if (box) box.textContent = state.path.length ? `path from ${label(state.path[0])}: shift-click another node` : '';
    return;
  }
  const p = shortestPath(full, state.path[0], state.path[1]);
  if (!p) {
    for (const id of state.path) cy.getElementById(id).addClass('on-path');
    if (box) box.textContent = `${label(state.path[0])} and ${label(state.path[1])}: neither waits for the other here`;
    return;
  }
  for (const id of [...p.nodes, ...p.edges]) cy.getElementById(id).addClass('on-path');
  if (box) box.textContent = `${label(p.nodes[0])} runs before ${label(p.nodes[p.nodes.length - 1])}: ${p.edges.length} relationship${p.edges.length === 1 ? '' : 's'}`;
}

/** Marks the matches of the search box, selects them and zooms to them (zoom: false keeps the
 *  view, for a redraw). */
function applySearch(zoom = false) {
  if (!cy) return;
  if (zoom) state.searched = undefined;
  cy.elements().removeClass('match faded');
  cy.nodes().unselect();
  if (!state.search.trim()) return;
  // a match inside a folded class marks the class
  const full = state.full!;
  const byId = byIdOf(full);
  const drawnIds = new Set(cy.nodes().map((n) => n.id()));
  const hits = [...new Set(searchNodes(full, state.search).map((id) => {
    let x: string | undefined = id;
    while (x && !drawnIds.has(x)) x = byId.get(x)?.parent;
    return x;
  }).filter((x): x is string => !!x))];
  const set = new Set(hits);
  cy.nodes().forEach((n) => { if (set.has(n.id())) n.addClass('match'); else if (!n.isParent()) n.addClass('faded'); });
  cy.edges().addClass('faded');
  if (!hits.length) return;
  const eles = cy.nodes().filter((n) => set.has(n.id()));
  eles.select();
  if (!zoom) return;
  // the matches fill the view, but never blown up past 1.5 (one small node would fill the screen)
  cy.stop();
  cy.fit(eles, 60);
  if (cy.zoom() > 1.5) { cy.zoom(1.5); cy.center(eles); }
  state.searched = { hits: hits.length, zoom: cy.zoom() };
  const gv = (window as unknown as { graphView?: { searched?: unknown } }).graphView;
  if (gv) gv.searched = state.searched;
}

/** A search that matches what a few folded containers hide opens them first (more than
 *  MAX_OPEN: the containers are marked, the user narrows the search). */
const MAX_OPEN = 8;
let searchTimer: ReturnType<typeof setTimeout> | undefined;
function search(text: string) {
  state.search = text;
  const full = state.full;
  if (full && text.trim()) {
    const byId = byIdOf(full);
    const collapsed = state.filter.collapsed ?? new Set<string>();
    const open = new Set<string>();
    for (const id of searchNodes(full, text)) for (let p = byId.get(id)?.parent; p; p = byId.get(p)?.parent) if (collapsed.has(p)) open.add(p);
    if (open.size > 0 && open.size <= MAX_OPEN) {
      state.filter = { ...state.filter, collapsed: new Set([...collapsed].filter((c) => !open.has(c))) };
      searchAfterDraw = true;
      draw();
      return;
    }
  }
  applySearch(true);
}
let searchAfterDraw = false;

/** One wheel notch zooms 15% about the mouse, whatever size of step the browser reports: a
 *  notch is 100 pixels, 3 lines or 1 page, a touchpad's small deltas zoom smoothly. */
function wheelZoom(ev: WheelEvent) {
  if (!cy) return;
  ev.preventDefault();
  const notches = ev.deltaMode === 1 ? ev.deltaY / 3 : ev.deltaMode === 2 ? ev.deltaY : ev.deltaY / 100;
  const box = (ev.currentTarget as HTMLElement).getBoundingClientRect();
  const level = Math.min(cy.maxZoom(), Math.max(cy.minZoom(), cy.zoom() * Math.pow(1.15, -notches)));
  cy.zoom({ level, renderedPosition: { x: ev.clientX - box.left, y: ev.clientY - box.top } });
}

window.addEventListener('message', (ev: MessageEvent) => {
  const m = ev.data;
  if (m?.type === 'graph') receive(m.model as GraphViewModel, m.reset !== false);
  else if (m?.type === 'layoutWorker' && typeof m.code === 'string' && !worker) startWorker(m.code);
  else if (m?.type === 'error') {
    document.getElementById('message')!.textContent = m.message;
    document.body.dataset.state = 'error';
  }
});
document.getElementById('fit')!.addEventListener('click', () => cy?.fit(undefined, 20));
// the panel was resized (editor split, side bar): keep the graph in view; a wrapped layout is
// made for the shape of the view, so a view of another shape gets it again
let laidOutFor = { w: 0, h: 0 };
let relayout: ReturnType<typeof setTimeout> | undefined;
new ResizeObserver(() => {
  if (!cy) return;
  cy.resize(); cy.fit(undefined, 20); if (cy.zoom() > 1.5) { cy.zoom(1.5); cy.center(); }
  const box = document.getElementById('cy')!.getBoundingClientRect();
  const changed = Math.abs(box.width / Math.max(1, laidOutFor.w) - 1) > 0.2 || Math.abs(box.height / Math.max(1, laidOutFor.h) - 1) > 0.2;
  if (wrapped && changed) { clearTimeout(relayout); relayout = setTimeout(draw, 150); }
}).observe(document.getElementById('cy')!);
document.getElementById('refresh')!.addEventListener('click', () => vscode.postMessage({ type: 'refresh' }));
input<HTMLSelectElement>('hops')?.addEventListener('change', (ev) => {
  const v = (ev.target as HTMLSelectElement).value;
  state.filter = { ...state.filter, hops: v === 'all' ? undefined : Number(v), focus: v === 'all' ? undefined : state.filter.focus };
  syncControls();
  draw();
});
input<HTMLInputElement>('cycles')?.addEventListener('change', (ev) => {
  state.filter = { ...state.filter, cyclesOnly: (ev.target as HTMLInputElement).checked };
  draw();
});
input<HTMLInputElement>('search')?.addEventListener('input', (ev) => {
  const text = (ev.target as HTMLInputElement).value;
  clearTimeout(searchTimer);
  searchTimer = setTimeout(() => search(text), 250); // not one redraw per keystroke
});
document.getElementById('cy')!.addEventListener('wheel', wheelZoom, { passive: false });
vscode.postMessage({ type: 'ready' });
