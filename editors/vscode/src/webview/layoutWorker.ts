// Runs in a Web Worker inside the graph webview: lays the graph out with a headless cytoscape
// (dagre, top to bottom in execution order) and sends the positions back, so a big graph never freezes
// the view while its layout runs.
import cytoscape from 'cytoscape';
// @ts-ignore: no types published for cytoscape-dagre
import dagre from 'cytoscape-dagre';
import { nodeWidth } from '../graphModel';
import type { LayoutRequest, LayoutResult } from './layoutProtocol';

cytoscape.use(dagre);

self.onmessage = (ev: MessageEvent<LayoutRequest>) => {
  const req = ev.data;
  const positions: LayoutResult['positions'] = {};
  try {
    const cy = cytoscape({ headless: true, styleEnabled: true, elements: req.elements });
    // sizes as the view draws them: labels in 12px, 8px padding
    cy.nodes().forEach((n) => {
      const label = String(n.data('display') ?? '');
      n.style({ width: nodeWidth(label), height: 30 });
    });
    const opts = { name: 'dagre', rankDir: 'TB', nodeSep: 30, rankSep: 50, fit: false };
    const layout = cy.layout(opts as cytoscape.LayoutOptions);
    layout.one('layoutstop', () => {
      cy.nodes().forEach((n) => { if (!n.isParent()) positions[n.id()] = { ...n.position() }; });
      (self as unknown as Worker).postMessage({ id: req.id, positions } satisfies LayoutResult);
    });
    layout.run();
  } catch (e) {
    (self as unknown as Worker).postMessage({ id: req.id, positions, error: String(e) } satisfies LayoutResult);
  }
};
