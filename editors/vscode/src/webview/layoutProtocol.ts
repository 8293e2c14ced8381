// Messages between the graph webview and its layout worker.
export interface LayoutRequest {
  id: number;
  /** cytoscape element definitions (data only) */
  elements: { data: Record<string, unknown> }[];
}
export interface LayoutResult {
  id: number;
  positions: Record<string, { x: number; y: number }>;
  error?: string;
}
