/* Plain-text report helpers of the benchmarks: numbers with thousands separators, Markdown tables. */

/** `n` with thousands separators and `digits` decimals; `n/a` when missing or not finite. */
export const fmt = (n: number | null | undefined, digits = 0): string =>
  n !== null && n !== undefined && Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : 'n/a';

/** A Markdown table, first column left-aligned, the others right-aligned; a missing cell is empty. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  return [line(header), `|${widths.map((w, i) => (i === 0 ? `${'-'.repeat(w + 1)}-` : `${'-'.repeat(w + 1)}:`)).join('|')}|`, ...rows.map(line)].join('\n');
}
