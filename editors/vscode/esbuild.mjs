// Bundles the extension (Node, CommonJS, 'vscode' external) and the graph webview script
// (browser IIFE with cytoscape + dagre inside: the webview loads nothing from the network), and
// writes dist/THIRD-PARTY-NOTICES.txt with the licence of every npm package in the bundles.
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import * as path from 'node:path';

const production = process.argv.includes('--production');
const common = { bundle: true, minify: production, sourcemap: !production, logLevel: 'warning', legalComments: 'none', metafile: true };

const results = await Promise.all([
  esbuild.build({
    ...common,
    entryPoints: ['src/extension.ts'],
    outfile: 'dist/extension.js',
    platform: 'node',
    format: 'cjs',
    target: 'node18',
    external: ['vscode'],
  }),
  esbuild.build({
    ...common,
    entryPoints: ['src/webview/graph.ts'],
    outfile: 'dist/graph.js',
    platform: 'browser',
    format: 'iife',
    target: 'es2020',
  }),
  // the layout worker: the extension hands its text to the webview, which starts it from a blob
  esbuild.build({
    ...common,
    sourcemap: false,
    entryPoints: ['src/webview/layoutWorker.ts'],
    outfile: 'dist/graphLayout.js',
    platform: 'browser',
    format: 'iife',
    target: 'es2020',
  }),
]);

// node_modules/<pkg> or node_modules/@scope/<pkg> of every bundled input
const pkgs = new Set();
for (const r of results) {
  for (const input of Object.keys(r.metafile.inputs)) {
    const m = input.match(/(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//);
    if (m) pkgs.add(m[1]);
  }
}
const parts = [];
for (const name of [...pkgs].sort()) {
  const dir = path.join('node_modules', name);
  const meta = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const lic = fs.readdirSync(dir).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
  parts.push(`${name} ${meta.version} (${meta.license || 'see below'})\n${'-'.repeat(60)}\n`
    + (lic ? fs.readFileSync(path.join(dir, lic), 'utf8').trim() : '(no licence file in the package)') + '\n');
}
fs.writeFileSync('dist/THIRD-PARTY-NOTICES.txt', `Bundled into dist/extension.js, dist/graph.js and dist/graphLayout.js:\n\n${parts.join('\n')}`);
