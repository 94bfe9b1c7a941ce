/**
 * The `wx-ai` mirror commands' answers for people (text output): a table per listing, aligned `key  value` lines for
 * one resource, the forecast's rows. Read defensively — a field the service left out is an empty cell — since the
 * JSON itself (`-o json`) is the service's body, untouched.
 */
import { fieldAt, isRecord, textOf } from '../contract/wire-fields.js';
import { alignColumns, renderTable, truncate } from '../output/text-table.js';
import { DESCRIPTION_WIDTH } from './models-text.js';

type Column = { header: string; cell(item: unknown): string | undefined };

function resourcesOf(body: unknown): unknown[] {
  return isRecord(body) && Array.isArray(body.resources) ? body.resources : [];
}

function table(columns: readonly Column[], items: readonly unknown[]): string {
  return renderTable(
    columns.map((c) => c.header),
    items.map((item) => columns.map((c) => c.cell(item) ?? '')),
  );
}

function ids(list: unknown): string | undefined {
  if (!Array.isArray(list)) return undefined;
  return list
    .map((f) => textOf(fieldAt(f, 'id')))
    .filter((f): f is string => f !== undefined)
    .join(',');
}

const DEPLOYMENT_COLUMNS: readonly Column[] = [
  { header: 'ID', cell: (d) => textOf(fieldAt(d, 'metadata', 'id')) },
  { header: 'NAME', cell: (d) => textOf(fieldAt(d, 'metadata', 'name')) },
  {
    header: 'SERVING NAME',
    cell: (d) =>
      textOf(fieldAt(d, 'entity', 'online', 'parameters', 'serving_name')) ??
      textOf(fieldAt(d, 'entity', 'serving_name')),
  },
  { header: 'TYPE', cell: (d) => textOf(fieldAt(d, 'entity', 'deployed_asset_type')) },
  { header: 'STATE', cell: (d) => textOf(fieldAt(d, 'entity', 'status', 'state')) },
  { header: 'BASE MODEL', cell: (d) => textOf(fieldAt(d, 'entity', 'base_model_id')) },
  { header: 'PROMPT TEMPLATE', cell: (d) => textOf(fieldAt(d, 'entity', 'prompt_template', 'id')) },
];

/** `deployment list`; with `--conflict` the service answers no body when the serving name is free. */
export function deploymentsText(body: unknown): string {
  // 204 No Content: the serving name --conflict asked about is free (a taken one is a 409, an error).
  if (body === null) return 'the serving name is available\n';
  return table(DEPLOYMENT_COLUMNS, resourcesOf(body));
}

/** `deployment get`: one deployment, one field a line. */
export function deploymentText(body: unknown): string {
  const rows: [string, string | undefined][] = [
    ...DEPLOYMENT_COLUMNS.map((c): [string, string | undefined] => [c.header.toLowerCase(), c.cell(body)]),
    ['description', textOf(fieldAt(body, 'metadata', 'description'))],
    ['space', textOf(fieldAt(body, 'metadata', 'space_id'))],
    ['project', textOf(fieldAt(body, 'metadata', 'project_id'))],
    ['created', textOf(fieldAt(body, 'metadata', 'created_at'))],
  ];
  return alignColumns(rows.filter((r): r is [string, string] => r[1] !== undefined && r[1] !== ''));
}

/** `foundation-model list-models`. */
export function foundationModelsText(body: unknown): string {
  return table(
    [
      { header: 'MODEL ID', cell: (m) => textOf(fieldAt(m, 'model_id')) },
      { header: 'PROVIDER', cell: (m) => textOf(fieldAt(m, 'provider')) },
      { header: 'FUNCTIONS', cell: (m) => ids(fieldAt(m, 'functions')) },
      {
        header: 'DESCRIPTION',
        cell: (m) => {
          const d = textOf(fieldAt(m, 'short_description'));
          return d === undefined ? undefined : truncate(d, DESCRIPTION_WIDTH);
        },
      },
    ],
    resourcesOf(body),
  );
}

/** `foundation-model list-tasks`. */
export function foundationModelTasksText(body: unknown): string {
  return table(
    [
      { header: 'TASK ID', cell: (t) => textOf(fieldAt(t, 'task_id')) },
      { header: 'LABEL', cell: (t) => textOf(fieldAt(t, 'label')) },
      {
        header: 'DESCRIPTION',
        cell: (t) => {
          const d = textOf(fieldAt(t, 'description'));
          return d === undefined ? undefined : truncate(d, DESCRIPTION_WIDTH);
        },
      },
    ],
    resourcesOf(body),
  );
}

function cellText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * `time-series forecast`: each result's columns (`{column: [values…]}`, as the service answers) as one table, a row
 * per forecast time.
 */
export function forecastText(body: unknown): string {
  const results = isRecord(body) && Array.isArray(body.results) ? body.results : [];
  return results
    .filter(isRecord)
    .map((result) => {
      const columns = Object.keys(result).filter((k) => Array.isArray(result[k]));
      const length = Math.max(0, ...columns.map((k) => (result[k] as unknown[]).length));
      const rows = Array.from({ length }, (_, i) => columns.map((k) => cellText((result[k] as unknown[])[i])));
      return renderTable(columns, rows);
    })
    .join('\n');
}
