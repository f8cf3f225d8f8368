// The printed table (also pasted into README's Benchmarks section): one row per figure.
import type { TableRow } from './area.ts';

export function renderTable(rows: readonly TableRow[], markdown = false): string {
  const header: TableRow = { area: 'area', metric: 'metric', value: 'value', source: 'source' };
  const cells = (r: TableRow) => [r.area, r.metric, r.value, r.source];
  if (markdown) {
    const line = (c: string[]) => `| ${c.map((x) => x.replaceAll('|', '\\|')).join(' | ')} |`;
    return [line(cells(header)), line(['---', '---', '---', '---']), ...rows.map((r) => line(cells(r)))].join('\n');
  }
  const all = [header, ...rows].map(cells);
  const widths = [0, 1, 2, 3].map((i) => Math.max(...all.map((c) => (c[i] as string).length)));
  return all.map((c) => c.map((x, i) => x.padEnd(widths[i] as number)).join('  ').trimEnd()).join('\n');
}
