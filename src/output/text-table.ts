/** Aligned columns for people (kubectl/gh style): two spaces between columns, no trailing spaces. */

/** Characters a terminal shows, not UTF-16 code units, so names with accents or emoji line up. */
function width(text: string): number {
  return [...text].length;
}

/** Rows of cells, each column as wide as its widest cell; line breaks inside a cell would break the layout. */
export function alignColumns(rows: readonly (readonly string[])[]): string {
  const columns = Math.max(0, ...rows.map((r) => r.length));
  const cells = rows.map((r) => Array.from({ length: columns }, (_, i) => (r[i] ?? '').replace(/[\r\n\t]+/g, ' ')));
  const widths = Array.from({ length: columns }, (_, i) => Math.max(...cells.map((r) => width(r[i]!))));
  return cells
    .map(
      (r) =>
        `${r
          .map((cell, i) => (i === columns - 1 ? cell : cell + ' '.repeat(widths[i]! - width(cell))))
          .join('  ')
          .trimEnd()}\n`,
    )
    .join('');
}

/** A header row over the data rows. */
export function renderTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  return alignColumns([headers, ...rows]);
}

/** Cuts text to `max` characters, ending in "…" when cut. */
export function truncate(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

/**
 * Rows fitted into `maxWidth` columns (a terminal's width): the widest cut-able column gives up a character at a time,
 * down to `minWidth`, its cells ending in "…"; then the last columns are left out. The first `keep` columns are never
 * cut. Piped output is not fitted.
 */
export function fitColumns(
  rows: readonly (readonly string[])[],
  maxWidth: number,
  { keep = 1, minWidth = 8 }: { keep?: number; minWidth?: number } = {},
): string[][] {
  const columns = Math.max(0, ...rows.map((r) => r.length));
  const widths = Array.from({ length: columns }, (_, i) => Math.max(0, ...rows.map((r) => width(r[i] ?? ''))));
  const total = () => widths.reduce((a, b) => a + b, 0) + 2 * Math.max(0, widths.length - 1);
  while (total() > maxWidth) {
    let widest = -1;
    for (let i = keep; i < columns; i++)
      if (widths[i]! > minWidth && (widest < 0 || widths[i]! > widths[widest]!)) widest = i;
    if (widest < 0) break;
    widths[widest]! -= 1;
  }
  // Still too wide with every column at its least: the last columns go (-o json has them all).
  while (total() > maxWidth && widths.length > keep + 1) widths.pop();
  return rows.map((r) => r.slice(0, widths.length).map((cell, i) => (i < keep ? cell : truncate(cell, widths[i]!))));
}
