// How long the graph webview's script (cytoscape + dagre) takes to draw generated graphs, in
// headless Chromium. Not a test (no timed assertions): a figure for the README.
// Usage (after `npm run build` in editors/vscode and test/install-code-server.sh):
//   NODE_PATH=~/.cache/ordering-lsp-editors/playwright-core-1.65.1/node_modules node editors/test/graph-bench.js [N...]
// or, to time a real answer of the server (an ordering/graph result saved as JSON), as the
// extension shows it (toViewModel, so through tsx):
//   NODE_PATH=... node --import ./editors/vscode/node_modules/tsx/dist/esm/index.mjs editors/test/graph-bench.js --answer FILE.json TITLE
const { chromium } = require('playwright-core');
const http = require('http');
const fs = require('fs');
const path = require('path');

const vscodeDir = path.join(__dirname, '..', 'vscode');
const answerAt = process.argv.indexOf('--answer');
const answer = answerAt > 0 ? { file: process.argv[answerAt + 1], title: process.argv[answerAt + 2] || 'graph' } : null;
const sizes = answer ? [] : process.argv.slice(2).map(Number).filter(Boolean);
const html = `<!DOCTYPE html><html><head><link rel="stylesheet" href="/graph.css"></head><body>
<header><span id="title"></span><span id="stats"></span><button id="fit"></button><button id="refresh"></button></header>
<div id="message"></div><main><div id="cy"></div><aside><ol id="list"></ol><div id="unordered-box"><ul id="unordered"></ul></div></aside></main>
<script>window.acquireVsCodeApi = () => ({ postMessage() {} });</script><script src="/graph.js"></script></body></html>`;
const files = { '/': html, '/graph.js': fs.readFileSync(path.join(vscodeDir, 'dist', 'graph.js')), '/graph.css': fs.readFileSync(path.join(vscodeDir, 'media', 'graph.css')) };

const srv = http.createServer((q, r) => { if (files[q.url]) r.end(files[q.url]); else { r.statusCode = 404; r.end(); } })
  .listen(0, '127.0.0.1', async () => {
    const b = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox', '--headless'] });
    if (answer) {
      const { toViewModel } = require(path.join(vscodeDir, 'src', 'graphModel.ts'));
      const t0 = Date.now();
      const model = toViewModel(JSON.parse(fs.readFileSync(answer.file, 'utf8')), answer.title);
      const convertMs = Date.now() - t0;
      const p = await b.newPage({ viewport: { width: 1200, height: 800 } });
      await p.goto(`http://127.0.0.1:${srv.address().port}/`);
      const r = await p.evaluate((model) => {
        const t = performance.now();
        window.postMessage({ type: 'graph', model }, '*');
        return new Promise((res) => { const w = () => (document.body.dataset.state === 'drawn'
          ? res({ ms: performance.now() - t, nodes: window.cy.nodes().length, edges: window.cy.edges().length, zoom: window.cy.zoom(),
            stats: document.getElementById('stats').textContent })
          : setTimeout(w, 10)); w(); });
      }, model);
      console.log(`${answer.file}: ${model.nodes.length} nodes, ${model.edges.length} edges in the answer; converted in ${convertMs} ms, `
        + `drawn in ${Math.round(r.ms)} ms: ${r.nodes} nodes, ${r.edges} edges on the canvas, zoom ${r.zoom.toFixed(2)} (${r.stats})`);
      await b.close();
      srv.close();
      return;
    }
    for (const n of sizes.length ? sizes : [100, 500, 1500]) {
      const p = await b.newPage({ viewport: { width: 1200, height: 800 } });
      await p.goto(`http://127.0.0.1:${srv.address().port}/`);
      const ms = await p.evaluate((n) => {
        // a chain with short back-links, every node ordered: the shape of a big Puppet catalog
        const nodes = [], edges = [];
        const range = (i) => ({ start: { line: i, character: 0 }, end: { line: i, character: 1 } });
        for (let i = 1; i <= n; i++) {
          nodes.push({ id: 'n' + i, display: `${i}. File[/etc/f${i}]`, label: `File[/etc/f${i}]`, position: i, kind: 'resource',
            system: 'puppet', uri: 'file:///x.pp', file: 'x.pp', range: range(i), cycle: false, classes: '' });
        }
        for (let i = 2; i <= n; i++) {
          edges.push({ id: 'e' + i, source: 'n' + Math.max(1, i - 1 - (i * 7919) % 5), target: 'n' + i, kind: 'order', reason: 'require', cycle: false, classes: 'kind-order' });
        }
        const t = performance.now();
        window.postMessage({ type: 'graph', model: { title: 'bench', nodes, edges,
          stats: { nodes: n, edges: edges.length, ordered: n, cycleNodes: 0, droppedEdges: 0, hiddenNodes: 0 } } }, '*');
        return new Promise((res) => { const w = () => (document.body.dataset.state === 'drawn' ? res(performance.now() - t) : setTimeout(w, 10)); w(); });
      }, n);
      console.log(`${n} nodes, ${n - 1} edges: drawn in ${Math.round(ms)} ms`);
      await p.close();
    }
    await b.close();
    srv.close();
  });
