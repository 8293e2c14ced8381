// The "On Each Node" view's logic, without 'vscode' (the unit tests use it): the server's answer
// to ordering/nodeMatrix for the declaration at the cursor, as rows: one per node, saying where
// the declaration runs there (position, run) or why it does not, with the node's problems and
// runs below it.
import type { NodeMatrixResult, NodePlace } from './protocol';

export interface NodeRow {
  id: string;
  label: string;
  description?: string;
  tooltip?: string;
  kind: 'runs' | 'absent' | 'problem' | 'run' | 'info';
  /** the node's data file, opened when the row is chosen */
  uri?: string;
  children?: NodeRow[];
}

/** Rows for an answer; undefined answer: the server has not answered (yet). */
export function nodeRows(res: NodeMatrixResult | undefined, current: string): NodeRow[] {
  if (current) {
    return [{ id: 'one', label: `Showing node ${current}`, description: 'choose "All nodes" (status bar) to see every node', kind: 'info' }];
  }
  if (!res) return [{ id: 'none', label: 'Put the cursor on a declaration', kind: 'info' }];
  if (!res.subject || res.nodes.length === 0) {
    return [{ id: 'msg', label: res.message || 'Nothing to show here', kind: 'info' }];
  }
  return res.nodes.map((n) => {
    const children: NodeRow[] = [];
    for (const p of n.problems ?? []) {
      children.push({ id: `${n.name}/p/${p}`, label: p, kind: 'problem' });
    }
    if (n.runs.length > 1) {
      n.runs.forEach((r, i) => children.push({
        id: `${n.name}/r/${i}`, label: `${ordinal(r.index)} of ${r.of}`, description: r.run + (r.refused ? ' (the run fails)' : ''), kind: 'run',
      }));
    }
    const kind: NodeRow['kind'] = n.absent ? 'absent' : (n.problems?.length || n.runs.some((r) => r.refused) ? 'problem' : 'runs');
    return {
      id: n.name,
      label: n.name,
      description: shortSummary(n),
      tooltip: [n.name + (n.detail ? ` (${n.detail})` : ''), n.summary, ...(n.problems ?? [])].join('\n'),
      kind,
      uri: n.uri,
      children: children.length ? children : undefined,
    };
  });
}

/** The view's title line: what the rows are about. */
export function nodeTitle(res: NodeMatrixResult | undefined): string {
  return res?.subject ? res.subject : '';
}

export function ordinal(n: number): string {
  const t = n % 100;
  if (t >= 11 && t <= 13) return `${n}th`;
  return `${n}${({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[n % 10] ?? 'th'}`;
}

/** What fits beside a node's name in a narrow side bar; the tooltip has the whole sentence. */
export function shortSummary(n: NodePlace): string {
  if (n.absent) {
    if (/^not declared/.test(n.absent)) return 'not declared (other branch)';
    if (/^not in this node's order/.test(n.absent)) return 'not in its catalog';
    return n.absent;
  }
  const r = n.runs[0];
  let s = r ? `${ordinal(r.index)} of ${r.of}${r.refused ? ', run fails' : ''}` : n.summary;
  if (n.runs.length > 1) s += ` (+${n.runs.length - 1} runs)`;
  const ref = n.refs?.length === 1 && n.summary.includes(` as ${n.refs[0]}`) ? ` as ${n.refs[0]}` : '';
  if (n.problems?.length) s += ` · ${n.problems.length} problem${n.problems.length > 1 ? 's' : ''}`;
  return s + ref;
}
