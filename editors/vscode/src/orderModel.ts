// ordering/order result -> the tree of the "Execution Order" view. Pure logic, unit-tested.
import type { OrderResult, Range } from './protocol';

export interface OrderItem {
  id: string;
  label: string;
  description?: string;
  tooltip?: string;
  /** 'run' | 'refused' | 'step' | 'empty' : picks the icon */
  kind: 'run' | 'refused' | 'step' | 'empty';
  location?: { uri: string; range: Range };
  children?: OrderItem[];
}

export function toOrderTree(result: OrderResult | null | undefined): OrderItem[] {
  const runs = Array.isArray(result?.runs) ? result!.runs : [];
  if (runs.length === 0) {
    return [{ id: 'empty', label: 'Nothing runs from this file', kind: 'empty' }];
  }
  const items: OrderItem[] = runs.map((run, r) => {
    const steps = Array.isArray(run.steps) ? run.steps : [];
    const children: OrderItem[] = steps.map((s, i) => ({
      id: `r${r}s${i}`,
      label: `${i + 1}. ${s.label}`,
      description: s.note || undefined,
      tooltip: s.note ? `${s.label}\n${s.note}` : s.label,
      kind: 'step',
      location: s.uri ? { uri: s.uri, range: s.range } : undefined,
    }));
    const n = steps.length;
    return {
      id: `r${r}`,
      label: run.name || `run ${r + 1}`,
      description: run.refused ? `refused${n ? `, ${n} step${n === 1 ? '' : 's'} listed` : ''}` : `${n} step${n === 1 ? '' : 's'}`,
      tooltip: run.entry ? `entry: ${run.entry}` : undefined,
      kind: run.refused ? 'refused' : 'run',
      children,
    };
  });
  const omitted = typeof result?.omitted === 'number' ? result.omitted : 0;
  if (omitted > 0) {
    items.push({
      id: 'omitted',
      label: `${omitted} more run${omitted === 1 ? '' : 's'} also involve this file`,
      tooltip: 'Not listed: the view shows the runs that start at this file and 50 others.',
      kind: 'empty',
    });
  }
  return items;
}
