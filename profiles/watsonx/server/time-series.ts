/**
 * `POST /ml/v1/time_series/forecast?version=` of the local watsonx server (the SDK's `timeSeriesForecast`): checks as
 * the service makes them — credentials, `version`, the body (`model_id`, `data`, `schema`, one of `project_id` /
 * `space_id`, `parameters.prediction_length`), the model (listed, with the `time_series_forecast` function), the
 * data (the timestamp column present, columns of equal length, every series as long as the model's context: 512,
 * 1024 or 1536 rows) — then a deterministic forecast: `prediction_length` rows per series (default and most: the
 * model's 96), each target column continued along the linear trend of its history, timestamps continuing `freq`
 * (or the step between the last two rows when no `freq` is given). The answer is columnar, as the service's is:
 * `results: [{<timestamp_column>: [...], <id columns>: [...], <targets>: [...]}]`.
 */
import { applyFault, sendAnswer } from '../../../src/emulator/core/apply-fault.js';
import type { ProtocolModule, RouteContext } from '../../../src/emulator/core/router.js';
import { takeFault } from '../../../src/emulator/core/take-fault.js';
import { sendWatsonxError, watsonxFaultWording } from './errors.js';
import { bodyAndModel } from './model-route.js';
import { watsonxPrelude } from './prelude.js';

const FIELDS = new Set(['model_id', 'data', 'schema', 'project_id', 'space_id', 'parameters']);
const SCHEMA_FIELDS = new Set(['timestamp_column', 'id_columns', 'freq', 'target_columns']);
/** What every granite-ttm model forecasts, and the most prediction_length may ask for (`…-96-r2`). */
const DEFAULT_PREDICTION_LENGTH = 96;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');

interface ForecastBody {
  model_id: string;
  data: Record<string, unknown[]>;
  timestamp: string;
  ids: string[];
  freq: string | undefined;
  targets: string[] | undefined;
  predictionLength: number | undefined;
}

/** The body's shape, in the service's words; the body when it is right. */
export function checkForecastBody(json: unknown): { ok: true; body: ForecastBody } | { ok: false; problems: string[] } {
  if (!isObject(json)) return { ok: false, problems: ['the request body must be a JSON object'] };
  const problems: string[] = [];
  for (const key of Object.keys(json)) if (!FIELDS.has(key)) problems.push(`'${key}' is not a recognized field`);
  const { model_id: model, data, schema, project_id: project, space_id: space, parameters } = json;
  if (typeof model !== 'string' || model === '')
    problems.push(model === undefined ? "'model_id' is required" : "'model_id' must be a non-empty string");
  if (data === undefined) problems.push("'data' is required");
  else if (!isObject(data)) problems.push("'data' must be of type object");
  else
    for (const [column, values] of Object.entries(data))
      if (!Array.isArray(values)) problems.push(`'data.${column}' must be of type array`);
  if (schema === undefined) problems.push("'schema' is required");
  else if (!isObject(schema)) problems.push("'schema' must be of type object");
  else {
    for (const key of Object.keys(schema))
      if (!SCHEMA_FIELDS.has(key)) problems.push(`'schema.${key}' is not a recognized field`);
    if (typeof schema.timestamp_column !== 'string' || schema.timestamp_column === '')
      problems.push("'schema.timestamp_column' is required");
    for (const list of ['id_columns', 'target_columns'] as const)
      if (schema[list] !== undefined && !isStringArray(schema[list]))
        problems.push(`'schema.${list}' must be an array of strings`);
    if (schema.freq !== undefined && typeof schema.freq !== 'string')
      problems.push("'schema.freq' must be of type string");
  }
  for (const [name, v] of [
    ['project_id', project],
    ['space_id', space],
  ] as const)
    if (v !== undefined && typeof v !== 'string') problems.push(`'${name}' must be of type string`);
  // IBM's reference example gives both; either one is enough.
  if (project === undefined && space === undefined)
    problems.push("either 'project_id' or 'space_id' must be given in the request body");
  let predictionLength: number | undefined;
  if (parameters !== undefined) {
    if (!isObject(parameters)) problems.push("'parameters' must be of type object");
    else {
      for (const key of Object.keys(parameters))
        if (key !== 'prediction_length') problems.push(`'parameters.${key}' is not a recognized field`);
      const n = parameters.prediction_length;
      if (n !== undefined && !(typeof n === 'number' && Number.isInteger(n) && n >= 1))
        problems.push("'parameters.prediction_length' must be an integer greater than or equal to 1");
      else if (typeof n === 'number') predictionLength = n;
    }
  }
  if (problems.length > 0) return { ok: false, problems };
  const s = schema as Record<string, unknown>;
  return {
    ok: true,
    body: {
      model_id: model as string,
      data: data as Record<string, unknown[]>,
      timestamp: s.timestamp_column as string,
      ids: (s.id_columns as string[] | undefined) ?? [],
      freq: s.freq as string | undefined,
      targets: s.target_columns as string[] | undefined,
      predictionLength,
    },
  };
}

/** A pandas offset alias of fixed length ("1h", "15min", "D", "30s", "W"), in milliseconds; undefined otherwise. */
export function freqMs(freq: string): number | undefined {
  const m = /^(\d*)\s*(ms|L|s|S|min|T|h|H|D|d|W|w)$/.exec(freq.trim());
  if (!m) return undefined;
  const n = m[1] === '' ? 1 : Number(m[1]);
  const unit: Record<string, number> = {
    ms: 1,
    L: 1,
    s: 1000,
    S: 1000,
    min: 60_000,
    T: 60_000,
    h: 3_600_000,
    H: 3_600_000,
    D: 86_400_000,
    d: 86_400_000,
    W: 604_800_000,
    w: 604_800_000,
  };
  return n > 0 ? n * (unit[m[2] as string] as number) : undefined;
}

/** A timestamp as the data wrote it: a number (an offset), or an ISO date or date-time (its style kept). */
type Stamp =
  | { kind: 'number'; value: number }
  | { kind: 'date'; ms: number; style: 'date' | 'naive' | 'zulu' | 'offset'; offset: string; fraction: number };

function readStamp(value: unknown): Stamp | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return { kind: 'number', value };
  if (typeof value !== 'string') return undefined;
  const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2})?)(\.\d+)?(Z|[+-]\d{2}:\d{2})?)?$/.exec(value);
  if (!m) return undefined;
  const zone = m[4] ?? '';
  const fraction = m[3] ? m[3].length - 1 : 0;
  const ms = Date.parse(`${m[1]}T${m[2] ?? '00:00:00'}${m[3] ?? ''}${zone === '' ? 'Z' : zone}`);
  if (Number.isNaN(ms)) return undefined;
  const style = m[2] === undefined ? 'date' : zone === '' ? 'naive' : zone === 'Z' ? 'zulu' : 'offset';
  return { kind: 'date', ms, style, offset: zone, fraction };
}

function offsetMs(offset: string): number {
  const m = /^([+-])(\d{2}):(\d{2})$/.exec(offset);
  return m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) * 60_000 : 0;
}

/** A time in the style of `like`. */
function writeStamp(like: Stamp, ms: number): string | number {
  if (like.kind === 'number') return ms;
  if (like.style === 'date') return new Date(ms).toISOString().slice(0, 10);
  const local = like.style === 'offset' ? ms + offsetMs(like.offset) : ms;
  const iso = new Date(local).toISOString();
  const seconds = iso.slice(0, 19);
  const fraction = like.fraction > 0 ? `.${iso.slice(20, 23).padEnd(like.fraction, '0').slice(0, like.fraction)}` : '';
  const zone = like.style === 'zulu' ? 'Z' : like.style === 'offset' ? like.offset : '';
  return `${seconds}${fraction}${zone}`;
}

function stampValue(s: Stamp): number {
  return s.kind === 'number' ? s.value : s.ms;
}

/** The next `n` values of a series along its least-squares line, rounded to 6 places: the same history, the same forecast. */
function extend(values: readonly number[], n: number): number[] {
  const count = values.length;
  const meanX = (count - 1) / 2;
  const meanY = values.reduce((a, b) => a + b, 0) / count;
  let num = 0;
  let den = 0;
  values.forEach((y, x) => {
    num += (x - meanX) * (y - meanY);
    den += (x - meanX) ** 2;
  });
  const slope = den === 0 ? 0 : num / den;
  return Array.from({ length: n }, (_, i) => Math.round((meanY + slope * (count + i - meanX)) * 1e6) / 1e6);
}

type Forecast = { ok: true; result: Record<string, unknown[]>; inputPoints: number } | { ok: false; message: string };

/** The forecast of every series, or the problem with the data in the service's words. */
export function forecast(body: ForecastBody, contextLength: number, predictionLength: number): Forecast {
  const { data, timestamp, ids } = body;
  const columns = Object.keys(data);
  if (!columns.includes(timestamp))
    return { ok: false, message: `Timestamp column '${timestamp}' is not present in the data` };
  const missing = [...ids, ...(body.targets ?? [])].find((c) => !columns.includes(c));
  if (missing !== undefined) return { ok: false, message: `Column '${missing}' is not present in the data` };
  const rows = (data[timestamp] as unknown[]).length;
  const ragged = columns.find((c) => (data[c] as unknown[]).length !== rows);
  if (ragged !== undefined)
    return {
      ok: false,
      message: `All columns of the data must have the same length: '${ragged}' differs from '${timestamp}'`,
    };
  const targets = body.targets ?? columns.filter((c) => c !== timestamp && !ids.includes(c));
  if (targets.length === 0) return { ok: false, message: 'The data has no target column to forecast' };

  // Rows of one series share the values of the id columns, in the order they first appear.
  const series = new Map<string, number[]>();
  for (let r = 0; r < rows; r++) {
    const key = JSON.stringify(ids.map((c) => (data[c] as unknown[])[r]));
    let list = series.get(key);
    if (!list) series.set(key, (list = []));
    list.push(r);
  }
  const result: Record<string, unknown[]> = { [timestamp]: [], ...Object.fromEntries(ids.map((c) => [c, []])) };
  for (const t of targets) result[t] = [];
  for (const [key, rowsOf] of series) {
    if (rowsOf.length < contextLength) {
      const which = ids.length > 0 ? ` for id ${key}` : '';
      return {
        ok: false,
        message: `Data should have at least ${contextLength} rows per time series (the context length of the model); got ${rowsOf.length}${which}`,
      };
    }
    const stamps = rowsOf.map((r) => readStamp((data[timestamp] as unknown[])[r]));
    const bad = stamps.indexOf(undefined);
    if (bad >= 0)
      return {
        ok: false,
        message: `Could not read the timestamp ${JSON.stringify((data[timestamp] as unknown[])[rowsOf[bad]!])} of column '${timestamp}'`,
      };
    const last = stamps[stamps.length - 1] as Stamp;
    const before = stamps[stamps.length - 2] as Stamp;
    let step: number | undefined;
    if (body.freq !== undefined && body.freq !== '') {
      step = freqMs(body.freq);
      if (step === undefined)
        return { ok: false, message: `Invalid frequency '${body.freq}' for the timestamp column` };
    }
    // Integer offsets count rows, whatever the frequency says; dates follow it, else the step of the last two rows.
    if (last.kind === 'number' || step === undefined) step = stampValue(last) - stampValue(before);
    if (!(step > 0)) return { ok: false, message: `Could not infer the frequency of column '${timestamp}'` };
    for (let i = 1; i <= predictionLength; i++)
      (result[timestamp] as unknown[]).push(writeStamp(last, stampValue(last) + step * i));
    const first = rowsOf[0] as number;
    for (const c of ids)
      for (let i = 0; i < predictionLength; i++) (result[c] as unknown[]).push((data[c] as unknown[])[first]);
    for (const t of targets) {
      const values = rowsOf.slice(-contextLength).map((r) => Number((data[t] as unknown[])[r]));
      if (values.some((v) => !Number.isFinite(v)))
        return { ok: false, message: `Target column '${t}' must hold numbers` };
      (result[t] as unknown[]).push(...extend(values, predictionLength));
    }
  }
  return { ok: true, result, inputPoints: rows * targets.length };
}

async function forecastRoute(ctx: RouteContext): Promise<void> {
  const prelude = watsonxPrelude(ctx, { field: 'data' });
  if (!prelude) return;
  const opened = bodyAndModel(ctx, checkForecastBody(prelude.json), 'time-series-forecast', 'time_series_forecast');
  if (!opened) return;
  const { body, model } = opened;
  const length = body.predictionLength ?? DEFAULT_PREDICTION_LENGTH;
  if (length > DEFAULT_PREDICTION_LENGTH)
    return sendWatsonxError(ctx.res, 400, [
      {
        code: 'invalid_input_argument',
        message: `prediction_length (${length}) must be no more than the model's prediction length (${DEFAULT_PREDICTION_LENGTH})`,
      },
    ]);
  // The TTM models' context is their first number: granite-ttm-512-96-r2 reads 512 rows.
  const made = forecast(body, model.contextTokens, length);
  if (!made.ok) return sendWatsonxError(ctx.res, 400, [{ code: 'invalid_input_argument', message: made.message }]);
  const fault = takeFault(ctx, false);
  if (await applyFault(fault, ctx, watsonxFaultWording(ctx.res))) return;
  const targets = Object.keys(made.result).length - 1 - body.ids.length;
  await sendAnswer(ctx, fault, {
    model_id: body.model_id,
    created_at: new Date().toISOString(),
    results: [made.result],
    input_data_points: made.inputPoints,
    output_data_points: (made.result[body.timestamp] as unknown[]).length * targets,
  });
}

export const watsonxTimeSeriesProtocol: ProtocolModule = {
  name: 'watsonx-time-series',
  prefixes: ['/ml/v1/time_series/'],
  routes: [{ method: 'POST', pattern: '/ml/v1/time_series/forecast', handler: forecastRoute }],
  sendError(ctx, status, code, message, headers) {
    sendWatsonxError(ctx.res, status, [{ code, message }], headers);
  },
};
