/** A table as plain data: a header row and body rows of cells. Rendered by {@link renderTable}. */
export interface Table {
  title?: string;
  headers: string[];
  rows: string[][];
  /** Columns to right-align (numbers). */
  numeric?: boolean[];
}

/** The table formats every report command offers. */
export type TableFormat = 'table' | 'md' | 'csv';

/** Renders a table for a terminal (aligned columns), as GitHub Markdown, or as CSV (RFC 4180 quoting). */
export function renderTable(table: Table, format: TableFormat): string {
  if (format === 'csv') return [table.headers, ...table.rows].map((row) => row.map(csvCell).join(',')).join('\n') + '\n';
  if (format === 'md') {
    const esc = (s: string) => s.replace(/\|/g, '\\|');
    const align = table.headers.map((_, i) => (table.numeric?.[i] ? '---:' : '---'));
    const lines = [table.headers, align, ...table.rows].map((row) => `| ${row.map(esc).join(' | ')} |`);
    return (table.title ? `### ${table.title}\n\n` : '') + lines.join('\n') + '\n';
  }
  const widths = table.headers.map((h, i) => Math.max(h.length, ...table.rows.map((r) => (r[i] ?? '').length)));
  const line = (row: string[]) =>
    row.map((cell, i) => (table.numeric?.[i] ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join('  ').trimEnd();
  const rule = widths.map((w) => '─'.repeat(w)).join('  ');
  return [...(table.title ? [table.title] : []), line(table.headers), rule, ...table.rows.map(line)].join('\n') + '\n';
}

function csvCell(value: string): string {
  return /[",\n\r]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}
