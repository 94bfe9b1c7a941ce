/**
 * `models` as text, for people: a table with the columns some entry fills (ID always), descriptions cut short;
 * one model's metadata as aligned `key  value` lines. Everything in full is `-o json`.
 */
import { alignColumns, fitColumns, renderTable, truncate } from '../output/text-table.js';
import type { ModelEntry, TensorSpec } from '../contract/adapter.js';

/** Long descriptions would push every row off the screen. */
export const DESCRIPTION_WIDTH = 60;

const COLUMNS: ReadonlyArray<{ header: string; cell(e: ModelEntry): string | undefined }> = [
  { header: 'ID', cell: (e) => e.id },
  { header: 'NAME', cell: (e) => e.name },
  { header: 'PROVIDER', cell: (e) => e.provider },
  { header: 'MODEL', cell: (e) => e.model },
  { header: 'SERVING NAME', cell: (e) => e.serving_name },
  { header: 'STATUS', cell: (e) => e.status },
  { header: 'VERSIONS', cell: (e) => e.versions?.join(',') },
  { header: 'MAX TOKENS', cell: (e) => (e.max_tokens !== undefined ? String(e.max_tokens) : undefined) },
  { header: 'FUNCTIONS', cell: (e) => e.functions?.join(',') },
  {
    header: 'DESCRIPTION',
    cell: (e) => (e.description !== undefined ? truncate(e.description, DESCRIPTION_WIDTH) : undefined),
  },
];

/** `maxWidth`: a terminal's width, which the table is fitted into (cells cut with "…"); piped, it is shown whole. */
export function modelsTable(entries: readonly ModelEntry[], maxWidth?: number): string {
  const shown = COLUMNS.filter((c, i) => i === 0 || entries.some((e) => c.cell(e) !== undefined));
  const rows = [shown.map((c) => c.header), ...entries.map((e) => shown.map((c) => c.cell(e) ?? ''))];
  if (maxWidth === undefined) return renderTable(rows[0]!, rows.slice(1));
  const fitted = fitColumns(rows, maxWidth);
  return renderTable(fitted[0]!, fitted.slice(1));
}

function tensorText(t: TensorSpec): string {
  return `${t.name} ${t.datatype} [${t.shape.join(',')}]`;
}

/** One entry, every field, one line each. */
export function modelDetails(e: ModelEntry): string {
  const rows: [string, string | undefined][] = [
    ['id', e.id],
    ['kind', e.kind],
    ['name', e.name],
    ['provider', e.provider],
    ['model', e.model],
    ['serving name', e.serving_name],
    ['status', e.status],
    ['versions', e.versions?.join(', ')],
    ['platform', e.platform],
    ['max tokens', e.max_tokens !== undefined ? String(e.max_tokens) : undefined],
    ['functions', e.functions?.join(', ')],
    ['description', e.description],
    ['inputs', e.inputs?.map(tensorText).join(', ')],
    ['outputs', e.outputs?.map(tensorText).join(', ')],
  ];
  return alignColumns(rows.filter((r): r is [string, string] => r[1] !== undefined));
}
