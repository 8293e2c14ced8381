import * as crypto from 'crypto';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { GraphRequest, type GraphParams, type GraphResult, type Position } from './protocol';
import { baseName, graphCsp, toViewModel } from './graphModel';
import { reveal } from './reveal';

/** reset: the user asked for this graph (a command), not a refresh after an edit: the view starts over */
type ToWebview = { type: 'graph'; model: ReturnType<typeof toViewModel>; reset: boolean } | { type: 'error'; message: string } | { type: 'layoutWorker'; code: string };
type FromWebview = { type: 'ready' } | { type: 'refresh' } | { type: 'reveal'; uri: string; range: GraphResult['nodes'][0]['range'] };

/** The "Execution Graph" webview: one panel, re-targeted by each command. */
export class GraphPanel {
  private static current: GraphPanel | undefined;
  private static timer: NodeJS.Timeout | undefined;
  private ready = false;
  private reset = true;

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    private readonly context: vscode.ExtensionContext,
    private readonly client: () => LanguageClient | undefined,
    private uri: string | undefined,
    private position: Position | undefined,
  ) {
    panel.webview.html = this.html();
    panel.onDidDispose(() => { if (GraphPanel.current === this) GraphPanel.current = undefined; });
    panel.webview.onDidReceiveMessage((m: FromWebview) => {
      if (m.type === 'ready') { this.ready = true; void this.sendLayoutWorker(); void this.refresh(); }
      else if (m.type === 'refresh') void this.refresh();
      else if (m.type === 'reveal') void reveal(m.uri, m.range, vscode.ViewColumn.One);
    });
  }

  /** position: centre the view on what is there (the cursor), showing its neighbourhood. */
  static show(context: vscode.ExtensionContext, client: () => LanguageClient | undefined, uri: string | undefined, position?: Position): void {
    if (GraphPanel.current) {
      GraphPanel.current.uri = uri;
      GraphPanel.current.position = position;
      GraphPanel.current.reset = true;
      GraphPanel.current.panel.reveal(vscode.ViewColumn.Beside, true);
      void GraphPanel.current.refresh();
      return;
    }
    const panel = vscode.window.createWebviewPanel('orderingGraph', 'Execution Graph',
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, {
        enableScripts: true,
        retainContextWhenHidden: true,
        localResourceRoots: [vscode.Uri.joinPath(context.extensionUri, 'dist'), vscode.Uri.joinPath(context.extensionUri, 'media')],
      });
    GraphPanel.current = new GraphPanel(panel, context, client, uri, position);
  }

  /** Diagnostics or settings changed: redraw (debounced). */
  static refreshSoon(): void {
    if (!GraphPanel.current) return;
    if (GraphPanel.timer) clearTimeout(GraphPanel.timer);
    GraphPanel.timer = setTimeout(() => { void GraphPanel.current?.refresh(); }, 400);
  }

  private post(m: ToWebview) { void this.panel.webview.postMessage(m); }

  /** The layout worker's script, as text: a webview cannot start a worker from the extension's
   *  resource origin, so it starts one from a blob of this text (CSP worker-src blob:). */
  private async sendLayoutWorker(): Promise<void> {
    try {
      const uri = vscode.Uri.joinPath(this.context.extensionUri, 'dist', 'graphLayout.js');
      const code = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
      this.post({ type: 'layoutWorker', code });
    } catch { /* no worker: the view lays out on its own thread */ }
  }

  async refresh(): Promise<void> {
    if (!this.ready) return;
    const title = this.uri ? baseName(this.uri) : 'workspace';
    this.panel.title = `Execution Graph: ${title}`;
    const c = this.client();
    if (!c) { this.post({ type: 'error', message: 'The ordering language server is not running.' }); return; }
    try {
      const params: GraphParams = this.uri ? { uri: this.uri, ...(this.position ? { position: this.position } : {}) } : {};
      this.position = undefined; // the focus is asked for once; a refresh keeps what the user chose
      const res = await c.sendRequest<GraphResult>(GraphRequest, params);
      this.post({ type: 'graph', model: toViewModel(res, title), reset: this.reset });
      this.reset = false;
    } catch (e) {
      this.post({ type: 'error', message: `ordering/graph failed: ${e instanceof Error ? e.message : String(e)}` });
    }
  }

  private html(): string {
    const w = this.panel.webview;
    const nonce = crypto.randomBytes(16).toString('base64');
    const script = w.asWebviewUri(vscode.Uri.joinPath(this.context.extensionUri, 'dist', 'graph.js'));
    const css = w.asWebviewUri(vscode.Uri.joinPath(this.context.extensionUri, 'media', 'graph.css'));
    const csp = graphCsp(w.cspSource, nonce);
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${css}">
<title>Execution Graph</title>
</head>
<body>
<header>
  <span id="title">Execution graph</span>
  <span id="stats"></span>
  <span class="legend"><span class="sw order"></span>order <span class="sw refresh"></span>refresh <span class="sw auto"></span>auto
  <span class="sw call"></span>call <span class="sw cycle"></span>cycle
  <span class="nd" title="a folded class, SLS or bundle: click to open it">folded</span>
  <span class="nd unordered" title="in no run: nothing places it in an execution order">no position</span>
  <span class="nd cycle" title="in a dependency cycle: it does not run">in a cycle</span>
  <span class="nd focus" title="the node the view is centred on (double-click another)">focus</span></span>
  <input id="search" type="search" placeholder="Search nodes" aria-label="search nodes">
  <label title="Only the nodes and relationships of dependency cycles"><input id="cycles" type="checkbox"> cycles only</label>
  <select id="hops" title="How many relationships away from the focused node to show (double-click a node to focus on it)">
    <option value="1">1 hop</option><option value="2">2 hops</option><option value="3">3 hops</option><option value="all">everything</option>
  </select>
  <span id="focus"></span>
  <span id="path" title="Shift-click two nodes: the chain of relationships between them"></span>
  <button id="fit" title="Fit to window">Fit</button>
  <button id="refresh" title="Ask the server again">Refresh</button>
</header>
<div id="message" role="status"></div>
<main>
  <div id="cy" role="img" aria-label="execution graph"></div>
  <aside><h2>Execution order</h2><ol id="list"></ol><div id="unordered-box"><h2>Not ordered</h2><ul id="unordered"></ul></div></aside>
</main>
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
  }
}
