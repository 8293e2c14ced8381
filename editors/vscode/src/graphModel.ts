// ordering/graph result -> what the webview draws. Pure logic, unit-tested.
import type { GraphResult, Range } from './protocol';

export interface ViewNode {
  /** cytoscape element id ("n" + server id) */
  id: string;
  /** text drawn in the node: "3. Notify[a]" */
  display: string;
  /** full label (tooltip, list) */
  label: string;
  position: number | null;
  kind: string;
  system: string;
  uri: string;
  /** file name only, for the list */
  file: string;
  range: Range;
  cycle: boolean;
  classes: string;
}

export interface ViewEdge {
  id: string;
  source: string;
  target: string;
  kind: string;
  reason: string;
  cycle: boolean;
  classes: string;
}

export interface GraphViewModel {
  title: string;
  /** in execution order: ordered nodes by position, then the nodes without a position */
  nodes: ViewNode[];
  edges: ViewEdge[];
  stats: { nodes: number; edges: number; ordered: number; cycleNodes: number; droppedEdges: number; hiddenNodes: number };
}

/** More nodes than this and the layout would freeze the view: the first ones in execution order are drawn. */
export const MAX_NODES = 1500;

export const MAX_DISPLAY = 48;

export function truncate(s: string, max = MAX_DISPLAY): string {
  const chars = Array.from(s); // never split a surrogate pair
  return chars.length <= max ? s : chars.slice(0, max - 1).join('') + '…';
}

export function baseName(uri: string): string {
  const noQuery = uri.split(/[?#]/)[0];
  const last = noQuery.split('/').filter(Boolean).pop() || uri;
  try { return decodeURIComponent(last); } catch { return last; }
}

function cls(...names: (string | false | undefined)[]): string {
  return names.filter(Boolean).map((n) => String(n).replace(/[^A-Za-z0-9_-]/g, '_')).join(' ');
}

export function toViewModel(result: GraphResult | null | undefined, title: string, maxNodes = MAX_NODES): GraphViewModel {
  const nodesIn = Array.isArray(result?.nodes) ? result!.nodes : [];
  const edgesIn = Array.isArray(result?.edges) ? result!.edges : [];

  // execution order: position ascending (stable), then the unordered ones in server order; in a
  // workspace graph each system has its own runs, so the systems stay apart (first seen first)
  const sysRank = new Map<string, number>();
  for (const n of nodesIn) if (!sysRank.has(String(n.system))) sysRank.set(String(n.system), sysRank.size);
  const indexed = nodesIn.map((n, i) => ({ n, i }));
  indexed.sort((a, b) => {
    const sa = sysRank.get(String(a.n.system))!, sb = sysRank.get(String(b.n.system))!;
    if (sa !== sb) return sa - sb;
    const pa = a.n.position, pb = b.n.position;
    const ha = typeof pa === 'number', hb = typeof pb === 'number';
    if (ha && hb) return (pa as number) - (pb as number) || a.i - b.i;
    if (ha !== hb) return ha ? -1 : 1;
    return a.i - b.i;
  });

  const seen = new Set<number>();
  const nodes: ViewNode[] = [];
  let hidden = 0;
  for (const { n } of indexed) {
    if (seen.has(n.id)) continue; // a duplicate id would break cytoscape
    if (nodes.length >= maxNodes) { hidden++; continue; }
    seen.add(n.id);
    const position = typeof n.position === 'number' ? n.position : null;
    const label = String(n.label ?? '');
    nodes.push({
      id: 'n' + n.id,
      display: truncate(position !== null ? `${position}. ${label}` : label),
      label,
      position,
      kind: String(n.kind ?? ''),
      system: String(n.system ?? ''),
      uri: String(n.uri ?? ''),
      file: baseName(String(n.uri ?? '')),
      range: n.range,
      cycle: !!n.cycle,
      classes: cls(n.cycle && 'cycle', position === null && 'unordered', n.system && 'sys-' + n.system),
    });
  }

  // edges: drop dangling ones, merge duplicates (same from/to/kind), keep every reason
  const merged = new Map<string, ViewEdge>();
  let dropped = 0;
  for (const e of edgesIn) {
    if (!seen.has(e.from) || !seen.has(e.to)) { dropped++; continue; }
    const key = `${e.from}-${e.to}-${e.kind}`;
    const prev = merged.get(key);
    if (prev) {
      if (e.reason && !prev.reason.split(', ').includes(e.reason)) prev.reason += (prev.reason ? ', ' : '') + e.reason;
      if (e.cycle && !prev.cycle) { prev.cycle = true; prev.classes = cls('kind-' + prev.kind, 'cycle'); }
      continue;
    }
    merged.set(key, {
      id: 'e' + merged.size,
      source: 'n' + e.from,
      target: 'n' + e.to,
      kind: String(e.kind ?? ''),
      reason: String(e.reason ?? ''),
      cycle: !!e.cycle,
      classes: cls('kind-' + e.kind, e.cycle && 'cycle'),
    });
  }
  const edges = [...merged.values()];
  return {
    title,
    nodes,
    edges,
    stats: {
      nodes: nodes.length,
      edges: edges.length,
      ordered: nodes.filter((n) => n.position !== null).length,
      cycleNodes: nodes.filter((n) => n.cycle).length,
      droppedEdges: dropped,
      hiddenNodes: hidden,
    },
  };
}

/**
 * Content Security Policy of the graph webview: nothing from the network, no inline or eval'd
 * script, only our bundled script (by nonce) and stylesheet (by the webview's own origin).
 * Inline style attributes are allowed: cytoscape sizes its canvases with them.
 */
export function graphCsp(cspSource: string, nonce: string): string {
  return [
    `default-src 'none'`,
    `script-src 'nonce-${nonce}'`,
    `style-src ${cspSource} 'unsafe-inline'`,
    `img-src ${cspSource} data:`,
    `font-src ${cspSource}`,
  ].join('; ');
}
