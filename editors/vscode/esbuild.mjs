// Bundles the extension (Node, CommonJS, 'vscode' external) and the graph webview script
// (browser IIFE with cytoscape + dagre inside: the webview loads nothing from the network).
import * as esbuild from 'esbuild';

const production = process.argv.includes('--production');
const common = { bundle: true, minify: production, sourcemap: !production, logLevel: 'warning', legalComments: 'linked' };

await Promise.all([
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
]);
