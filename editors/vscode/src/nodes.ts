// The node picker's logic, without 'vscode' (the unit tests use it): what the server's
// ordering.nodes command answers, how the picker lists it and what the status bar says.
// Choosing a node sets ordering.node; the server then answers hovers, lenses, inlay hints and
// diagnostics for that node (its facts, its classification). "All nodes" is the empty setting.

export const NODES_COMMAND = 'ordering.nodes';
export const PICK_NODE_COMMAND = 'ordering.pickNode';

/** One node of the server's answer (lsp/ordering_nodes.go). */
export interface NodeEntry {
  name: string;
  detail?: string;
  /** the node comes with its data (a fact set), not only a name node blocks spell */
  data: boolean;
  uri?: string;
}

export interface NodesAnswer {
  current: string;
  nodes: NodeEntry[];
}

/** The picker's rows: "All nodes" first, then every node, the current one marked. */
export interface PickRow {
  label: string;
  description?: string;
  detail?: string;
  /** the value of ordering.node this row sets ('' = all nodes) */
  node: string;
  picked: boolean;
}

export const ALL_NODES = 'All nodes';

export function pickRows(answer: NodesAnswer | undefined): PickRow[] {
  const current = answer?.current ?? '';
  const rows: PickRow[] = [{
    label: ALL_NODES, description: 'every branch a possibility', detail: 'the On Each Node view shows where the declaration at the cursor runs on each node', node: '', picked: current === '',
  }];
  for (const n of answer?.nodes ?? []) {
    rows.push({
      label: n.name,
      description: n.detail || undefined,
      detail: n.data ? 'fact set: its facts decide conditions and Hiera levels' : 'node block: classification by name, no facts',
      node: n.name,
      picked: n.name === current,
    });
  }
  return rows;
}

/** The status bar item's text for the configured node. */
export function statusText(node: string | undefined): string {
  return `$(server-environment) Node: ${node ? node : 'all nodes'}`;
}

/** A node name from the setting: anything but a non-empty string is "all nodes". */
export function nodeSetting(v: unknown): string {
  return typeof v === 'string' ? v.trim() : '';
}
