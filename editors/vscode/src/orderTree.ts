import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { OrderRequest, type OrderParams, type OrderResult } from './protocol';
import { toOrderTree, type OrderItem } from './orderModel';

const ICONS: Record<OrderItem['kind'], vscode.ThemeIcon> = {
  run: new vscode.ThemeIcon('play-circle'),
  refused: new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground')),
  step: new vscode.ThemeIcon('debug-stackframe-dot'),
  empty: new vscode.ThemeIcon('info'),
};

/** The "Execution Order" view: runs of the file asked about, each with its steps. */
export class OrderTreeProvider implements vscode.TreeDataProvider<OrderItem> {
  private items: OrderItem[] = [];
  private readonly changed = new vscode.EventEmitter<OrderItem | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  uri: string | undefined;

  constructor(private readonly client: () => LanguageClient | undefined) {}

  async load(uri: string): Promise<void> {
    this.uri = uri;
    const c = this.client();
    if (!c) {
      this.items = [{ id: 'down', label: 'The ordering language server is not running', kind: 'empty' }];
    } else {
      try {
        const res = await c.sendRequest<OrderResult>(OrderRequest, { uri } satisfies OrderParams);
        this.items = toOrderTree(res);
      } catch (e) {
        this.items = [{ id: 'err', label: `ordering/order failed: ${e instanceof Error ? e.message : String(e)}`, kind: 'empty' }];
      }
    }
    this.changed.fire(undefined);
  }

  private timer: NodeJS.Timeout | undefined;

  /** Diagnostics or settings changed: ask again for the same file (debounced). */
  reloadSoon(): void {
    if (!this.uri) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => { if (this.uri) void this.load(this.uri); }, 500);
  }

  getTreeItem(it: OrderItem): vscode.TreeItem {
    const t = new vscode.TreeItem(it.label, it.children && it.children.length
      ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
    t.id = it.id;
    t.description = it.description;
    t.tooltip = it.tooltip;
    t.iconPath = ICONS[it.kind];
    if (it.location) {
      t.command = { command: 'ordering.order.reveal', title: 'Go to Step', arguments: [it.location] };
    }
    return t;
  }

  getChildren(it?: OrderItem): OrderItem[] {
    return it ? it.children ?? [] : this.items;
  }
}
