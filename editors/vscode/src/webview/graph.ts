// Runs inside the webview: draws the graph with cytoscape + dagre (bundled, no network).
import cytoscape from 'cytoscape';
// @ts-ignore: no types published for cytoscape-dagre
import dagre from 'cytoscape-dagre';
import { filterView, neighbourhoodLayout, searchNodes, shortestPath, type GraphViewModel, type ViewFilter, type ViewNode } from '../graphModel';
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
const state: { full?: GraphViewModel; filter: ViewFilter; path: string[]; search: string; serial: number } = { filter: {}, path: [], search: '', serial: 0 };

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
    state.path = [];
  }
  syncControls();
  renderList(model);
  draw();
}

/** Containers start folded (a class of a real module holds dozens of resources), except those
 *  around the focus and those in a cycle, which are what the user came to see. */
function initiallyFolded(model: GraphViewModel): Set<string> {
  const byId = byIdOf(model);
  const open = new Set<string>();
  for (let p = model.focus; p; p = byId.get(p)?.parent) open.add(p);
  for (const n of model.nodes) if (n.cycle) for (let p = n.parent; p; p = byId.get(p)?.parent) open.add(p);
  return new Set(model.nodes.filter((n) => n.container && !open.has(n.id)).map((n) => n.id));
}

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
  return `${s.nodes} nodes, ${s.edges} edges${s.cycleNodes ? `, ${s.cycleNodes} in cycles` : ''}`
    + (s.hiddenNodes ? ` (${s.hiddenNodes} not shown${state.full?.stats.hiddenNodes ? ': open the graph of one file' : ''})` : '');
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
    wheelSensitivity: 0.3,
    style: [
      { selector: 'node', style: {
        shape: 'round-rectangle', 'background-color': nodeBg, 'border-width': 1, 'border-color': border,
        label: 'data(display)', color: fg, 'font-size': 12, 'text-valign': 'center', 'text-halign': 'center',
        width: 'label', height: 'label', padding: '8px', 'text-wrap': 'none',
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
  applySearch();
  applyPath();
  (window as unknown as { cy: cytoscape.Core; graphView: unknown }).cy = cy; // handy from devtools and the end-to-end test
  (window as unknown as { graphView: unknown }).graphView = { filter: state.filter, path: state.path, model, serial: state.serial, laidOutBy, workerTrouble };
  document.body.dataset.state = 'drawn';
}

/** The whole graph flows top to bottom in execution order (dagre, in the worker when big); a
 *  neighbourhood is laid out around its centre, before it on the left and after it on the right
 *  (neighbourhoodLayout: linear, so it runs here). */
function layoutFor(model: GraphViewModel): cytoscape.LayoutOptions {
  const focus = state.filter.focus;
  if (!focus || !model.nodes.some((n) => n.id === focus)) {
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

function applySearch() {
  if (!cy) return;
  cy.elements().removeClass('match faded');
  const hits = searchNodes(filterView(state.full!, state.filter), state.search);
  if (!state.search.trim()) return;
  const set = new Set(hits);
  cy.nodes().forEach((n) => { if (set.has(n.id())) n.addClass('match'); else if (!n.isParent()) n.addClass('faded'); });
  cy.edges().addClass('faded');
  if (hits.length) cy.animate({ center: { eles: cy.getElementById(hits[0]) } }, { duration: 200 });
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
// the panel was resized (editor split, side bar): keep the graph in view
new ResizeObserver(() => { if (cy) { cy.resize(); cy.fit(undefined, 20); if (cy.zoom() > 1.5) { cy.zoom(1.5); cy.center(); } } })
  .observe(document.getElementById('cy')!);
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
  state.search = (ev.target as HTMLInputElement).value;
  applySearch();
});
vscode.postMessage({ type: 'ready' });
