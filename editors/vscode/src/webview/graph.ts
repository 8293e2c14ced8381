// Runs inside the webview: draws the graph with cytoscape + dagre (bundled, no network).
import cytoscape from 'cytoscape';
// @ts-ignore: no types published for cytoscape-dagre
import dagre from 'cytoscape-dagre';
import type { GraphViewModel, ViewNode } from '../graphModel';

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

function render(model: GraphViewModel) {
  document.getElementById('message')!.textContent = '';
  document.getElementById('title')!.textContent = `Execution graph: ${model.title}`;
  const s = model.stats;
  document.getElementById('stats')!.textContent =
    `${s.nodes} nodes, ${s.edges} edges${s.cycleNodes ? `, ${s.cycleNodes} in cycles` : ''}`
    + (s.hiddenNodes ? ` (${s.hiddenNodes} more not drawn: open the graph of one file)` : '');
  renderList(model);

  const fg = themeColor('--vscode-editor-foreground', '#333');
  const bg = themeColor('--vscode-editor-background', '#fff');
  const nodeBg = themeColor('--vscode-editorWidget-background', '#f3f3f3');
  const border = themeColor('--vscode-editorWidget-border', '#888');
  const red = themeColor('--vscode-errorForeground', '#e51400');
  const blue = themeColor('--vscode-textLink-foreground', '#3794ff');
  const orange = themeColor('--vscode-editorWarning-foreground', '#bf8803');

  const byId = new Map(model.nodes.map((n) => [n.id, n]));
  cy?.destroy();
  cy = cytoscape({
    container: document.getElementById('cy'),
    elements: [
      ...model.nodes.map((n) => ({ data: { id: n.id, label: n.label, display: n.display }, classes: n.classes })),
      ...model.edges.map((e) => ({ data: { id: e.id, source: e.source, target: e.target, reason: e.reason }, classes: e.classes })),
    ],
    wheelSensitivity: 0.3,
    style: [
      { selector: 'node', style: {
        shape: 'round-rectangle', 'background-color': nodeBg, 'border-width': 1, 'border-color': border,
        label: 'data(display)', color: fg, 'font-size': 12, 'text-valign': 'center', 'text-halign': 'center',
        width: 'label', height: 'label', padding: '8px', 'text-wrap': 'none',
      } },
      { selector: 'node.unordered', style: { 'border-style': 'dashed' } },
      { selector: 'node.cycle', style: { 'border-color': red, 'border-width': 3, color: red } },
      { selector: 'edge', style: {
        width: 1.5, 'line-color': fg, 'target-arrow-color': fg, 'target-arrow-shape': 'triangle', 'curve-style': 'bezier',
        label: 'data(reason)', 'font-size': 10, color: fg, 'text-background-color': bg, 'text-background-opacity': 1,
        'text-rotation': 'autorotate',
      } },
      { selector: 'edge.kind-refresh', style: { 'line-style': 'dashed', 'line-color': orange, 'target-arrow-color': orange } },
      { selector: 'edge.kind-auto', style: { 'line-style': 'dotted' } },
      { selector: 'edge.kind-call', style: { 'line-color': blue, 'target-arrow-color': blue } },
      { selector: 'edge.kind-reference', style: { 'line-style': 'dotted', opacity: 0.6 } },
      { selector: 'edge.cycle', style: { 'line-color': red, 'target-arrow-color': red, width: 3, color: red } },
      { selector: ':selected', style: { 'overlay-opacity': 0.15 } },
    ],
    layout: { name: 'dagre', rankDir: 'TB', nodeSep: 30, rankSep: 50, fit: true, padding: 20 } as cytoscape.LayoutOptions,
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
  fit();
  cy.on('tap', 'node', (ev) => { const n = byId.get(ev.target.id()); if (n) revealNode(n); });
  (window as unknown as { cy: cytoscape.Core }).cy = cy; // handy from devtools and the end-to-end test
  document.body.dataset.state = 'drawn';
}

window.addEventListener('message', (ev: MessageEvent) => {
  const m = ev.data;
  if (m?.type === 'graph') render(m.model as GraphViewModel);
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
vscode.postMessage({ type: 'ready' });
