// Types of the ordering-lsp custom requests (the server contract). No 'vscode' import: the
// webview and the unit tests use these too.

export interface Position { line: number; character: number }
export interface Range { start: Position; end: Position }

export type EdgeKind = 'order' | 'refresh' | 'auto' | 'call' | 'reference';

export interface GraphNode {
  id: number;
  label: string;
  kind: string;
  system: string;
  uri: string;
  range: Range;
  /** 1-based execution position; null when the node does not run in order (cycle, skipped, container) */
  position: number | null;
  cycle: boolean;
  /** the node's container (class, define, bundle...) when the container is in the answer too */
  parent?: number;
  container?: boolean;
}

export interface GraphEdge {
  from: number;
  to: number;
  kind: EdgeKind | string;
  reason: string;
  cycle: boolean;
}

/** ordering/graph: params { uri?: string, position?: Position } (no uri = whole workspace);
 *  focus: the node at that position (or the target of the reference there) */
export interface GraphResult { nodes: GraphNode[]; edges: GraphEdge[]; focus?: number }
export interface GraphParams { uri?: string; position?: Position }

export interface Step { label: string; note: string; uri: string; range: Range }
export interface Run { name: string; entry: string; refused: boolean; steps: Step[] }
/** ordering/order: params { uri: string } */
/** omitted: runs that involve the file but are not listed (the server lists at most 50 besides those starting there) */
export interface OrderResult { runs: Run[]; omitted?: number }
export interface OrderParams { uri: string }

export const GraphRequest = 'ordering/graph';
export const OrderRequest = 'ordering/order';

/** ordering/nodeMatrix: params { textDocument: { uri }, position } (lsp/ordering_node_matrix.go):
 *  where the declaration at the position runs on each node with data, or why it does not. */
export interface NodeRunPlace { run: string; index: number; of: number; refused: boolean }
export interface NodePlace {
  name: string;
  detail?: string;
  /** the node's data file (fact set, minion data) */
  uri?: string;
  /** what the node calls the declaration (a title its facts decide) */
  refs?: string[];
  runs: NodeRunPlace[];
  /** why the node's order lacks it; absent when it has it */
  absent?: string;
  problems?: string[];
  /** the node's answer in one line */
  summary: string;
}
export interface NodeMatrixResult { subject: string; kind?: string; current: string; nodes: NodePlace[]; message?: string }
export interface NodeMatrixParams { textDocument: { uri: string }; position: Position }
export const NodeMatrixRequest = 'ordering/nodeMatrix';
