// The status bar item "Node: <name>" and its quick pick (command ordering.pickNode). The list comes
// from the server (ordering.nodes: fact sets of ordering.puppet.facts, node-block names...); the
// choice is the workspace setting ordering.node, which the extension sends to the server like any
// other setting, so every client of the server (a setting in Neovim, Emacs) gets the same view.
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { NODES_COMMAND, NodesAnswer, PICK_NODE_COMMAND, nodeSetting, pickRows, statusText } from './nodes';

export class NodePicker implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly subs: vscode.Disposable[] = [];

  constructor(private readonly client: () => LanguageClient | undefined) {
    this.item = vscode.window.createStatusBarItem('ordering.node', vscode.StatusBarAlignment.Left, 9);
    this.item.name = 'Ordering: Node';
    this.item.command = PICK_NODE_COMMAND;
    this.item.tooltip = 'Ordering: the node whose order hovers, lenses, hints and diagnostics show (click to choose)';
    this.refresh();
    this.subs.push(
      vscode.commands.registerCommand(PICK_NODE_COMMAND, () => this.pick()),
      vscode.workspace.onDidChangeConfiguration((e) => { if (e.affectsConfiguration('ordering.node')) this.refresh(); }),
    );
  }

  /** Shown once the server runs (a sleeping extension shows nothing: activation.ts). */
  show(): void {
    this.item.show();
  }

  private current(): string {
    return nodeSetting(vscode.workspace.getConfiguration('ordering').get('node'));
  }

  private refresh(): void {
    this.item.text = statusText(this.current());
  }

  async pick(): Promise<void> {
    const c = this.client();
    let answer: NodesAnswer | undefined;
    if (c) {
      try {
        answer = await c.sendRequest('workspace/executeCommand', { command: NODES_COMMAND, arguments: [] }) as NodesAnswer;
      } catch (err) {
        void vscode.window.showWarningMessage(`Ordering: cannot list the nodes: ${String(err)}`);
      }
    }
    if (answer) answer.current = this.current();
    const rows = pickRows(answer);
    const chosen = await vscode.window.showQuickPick(rows, {
      title: 'Ordering: show the order of node…',
      placeHolder: rows.length > 1 ? 'a fact set or node name' : 'no fact sets: set ordering.puppet.facts to a folder of fact sets',
      matchOnDescription: true,
    });
    if (!chosen) return;
    const target = vscode.workspace.workspaceFolders?.length ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
    await vscode.workspace.getConfiguration('ordering').update('node', chosen.node || undefined, target);
    // all nodes, with nodes to show: the view that shows them
    if (!chosen.node && answer?.nodes.some((n) => n.data)) await vscode.commands.executeCommand('ordering.showNodeMatrix');
  }

  dispose(): void {
    this.item.dispose();
    for (const s of this.subs) s.dispose();
  }
}
