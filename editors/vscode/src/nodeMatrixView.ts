// The "On Each Node" view (container "Ordering"): with no node chosen ("All nodes") and a folder
// of node data (ordering.puppet.facts, ordering.salt.minions), where the declaration under the
// cursor runs on each node, or why it does not. It follows the cursor while visible; the server
// computes each node's analysis once per version of the text (ordering/nodeMatrix), and hovers
// then show the same lines.
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { NodeMatrixRequest, type NodeMatrixParams, type NodeMatrixResult } from './protocol';
import { nodeRows, nodeTitle, type NodeRow } from './nodeMatrix';
import { nodeSetting } from './nodes';
import { isOrderingDocument } from './languages';

const ICONS: Record<NodeRow['kind'], vscode.ThemeIcon> = {
  runs: new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed')),
  absent: new vscode.ThemeIcon('circle-slash'),
  problem: new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground')),
  run: new vscode.ThemeIcon('debug-stackframe-dot'),
  info: new vscode.ThemeIcon('info'),
};

export const NODE_VIEW = 'orderingNodes';

export class NodeMatrixView implements vscode.TreeDataProvider<NodeRow>, vscode.Disposable {
  private rows: NodeRow[] = nodeRows(undefined, '');
  private readonly changed = new vscode.EventEmitter<NodeRow | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly view: vscode.TreeView<NodeRow>;
  private readonly subs: vscode.Disposable[] = [];
  private timer: NodeJS.Timeout | undefined;
  private asked = 0;

  constructor(private readonly client: () => LanguageClient | undefined) {
    this.view = vscode.window.createTreeView(NODE_VIEW, { treeDataProvider: this });
    this.subs.push(
      this.view,
      this.view.onDidChangeVisibility((e) => { if (e.visible) this.soon(0); }),
      vscode.window.onDidChangeTextEditorSelection(() => this.soon(300)),
      vscode.window.onDidChangeActiveTextEditor(() => this.soon(300)),
      vscode.languages.onDidChangeDiagnostics(() => this.soon(500)),
      vscode.workspace.onDidChangeConfiguration((e) => { if (e.affectsConfiguration('ordering')) this.soon(500); }),
    );
  }

  /** Asks again after ms (debounced), if the view is visible. */
  soon(ms: number): void {
    if (!this.view.visible) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.load(), ms);
  }

  async load(): Promise<void> {
    const ed = vscode.window.activeTextEditor;
    const current = nodeSetting(vscode.workspace.getConfiguration('ordering').get('node'));
    const c = this.client();
    if (!ed || !isOrderingDocument(ed.document) || !c || current) {
      this.show(nodeRows(undefined, current), '');
      return;
    }
    const at = ed.selection.active;
    const id = ++this.asked;
    let res: NodeMatrixResult | undefined;
    try {
      res = await c.sendRequest<NodeMatrixResult>(NodeMatrixRequest, {
        textDocument: { uri: ed.document.uri.toString() }, position: { line: at.line, character: at.character },
      } satisfies NodeMatrixParams);
    } catch (e) {
      if (id === this.asked) this.show([{ id: 'err', label: `ordering/nodeMatrix failed: ${e instanceof Error ? e.message : String(e)}`, kind: 'info' }], '');
      return;
    }
    if (id !== this.asked) return; // the cursor moved on
    this.show(nodeRows(res, current), nodeTitle(res));
  }

  private show(rows: NodeRow[], title: string): void {
    this.rows = rows;
    this.view.description = title;
    this.changed.fire(undefined);
  }

  getTreeItem(it: NodeRow): vscode.TreeItem {
    const t = new vscode.TreeItem(it.label, it.children?.length ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
    t.id = it.id;
    t.description = it.description;
    t.tooltip = it.tooltip;
    t.iconPath = ICONS[it.kind];
    if (it.uri) t.command = { command: 'vscode.open', title: 'Open the node\'s data', arguments: [vscode.Uri.parse(it.uri)] };
    return t;
  }

  getChildren(it?: NodeRow): NodeRow[] {
    return it ? it.children ?? [] : this.rows;
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    for (const s of this.subs) s.dispose();
  }
}
