/**
 * The body of a time-series forecast from `time-series forecast`'s options (src/options/forecast-flag-specs.ts):
 * `model_id`, `data`, `schema` and `parameters` as IBM's SDK sends them (`TimeSeriesForecastParams`); the space or
 * project is placed by the adapter. Checked before anything is sent, with messages that name the flag.
 */
import type { Context } from '../context.js';
import { UsageError } from '../contract/errors.js';
import { isRecord } from '../contract/wire-fields.js';
import { FORECAST_EXCLUSIONS, type ForecastFlagOptions } from '../options/forecast-flag-specs.js';
import { parseStopSequences } from '../options/flag-values.js';
import { parseIntegerFlag } from '../options/integer-flag.js';
import { fileIo } from './task-options.js';

const MAX_MODEL_ID = 256;
const SCHEMA_FIELDS = ['timestamp_column', 'id_columns', 'freq', 'target_columns'] as const;

function given(options: ForecastFlagOptions, flag: string): boolean {
  const key = flag.slice(2).replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
  return (options as Record<string, unknown>)[key] !== undefined;
}

function columns(flag: string, value: string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const items = parseStopSequences(flag, value);
  const bad = items.find((i) => typeof i !== 'string' || i === '');
  if (bad !== undefined) throw new UsageError(`${flag} takes column names, got ${JSON.stringify(bad)}`);
  return items as string[];
}

function checkObject(flag: string, value: unknown, what: string): Record<string, unknown> {
  if (!isRecord(value)) throw new UsageError(`${flag} must be a JSON object (${what}), got ${JSON.stringify(value)}`);
  return value;
}

export async function forecastBody(options: ForecastFlagOptions, ctx: Context): Promise<Record<string, unknown>> {
  for (const [json, ...twins] of FORECAST_EXCLUSIONS) {
    const twin = twins.find((t) => given(options, t));
    if (given(options, json) && twin !== undefined)
      throw new UsageError(`${json} and ${twin} cannot be used together`, {
        hint: `put everything in ${json}, or use the ${json}-* flags alone`,
      });
  }
  const model = options.modelId;
  if (model === undefined || model === '')
    throw new UsageError('--model-id is required', {
      hint: 'list the time-series models: textgen foundation-model list-models --filters function_time_series_forecast',
    });
  if (model.length > MAX_MODEL_ID)
    throw new UsageError(`--model-id must be at most ${MAX_MODEL_ID} characters, got ${model.length}`);
  if (options.data === undefined)
    throw new UsageError('--data is required', {
      hint: 'give the history as JSON or @file: {"date": [...], "sales": [...]}',
    });
  const io = fileIo(ctx);
  const data = checkObject('--data', await io.readJson('--data', options.data), 'one array per column');

  let schema: Record<string, unknown>;
  if (options.schema !== undefined) {
    schema = checkObject('--schema', await io.readJson('--schema', options.schema), 'timestamp_column, …');
    const unknown = Object.keys(schema).find((k) => !(SCHEMA_FIELDS as readonly string[]).includes(k));
    if (unknown !== undefined)
      throw new UsageError(`--schema: unknown field "${unknown}"`, {
        hint: `the fields are ${SCHEMA_FIELDS.join(', ')}`,
      });
  } else {
    schema = {};
    if (options.schemaTimestampColumn !== undefined) schema.timestamp_column = options.schemaTimestampColumn;
    const ids = columns('--schema-id-columns', options.schemaIdColumns);
    if (ids !== undefined) schema.id_columns = ids;
    if (options.schemaFreq !== undefined) schema.freq = options.schemaFreq;
    const targets = columns('--schema-target-columns', options.schemaTargetColumns);
    if (targets !== undefined) schema.target_columns = targets;
  }
  if (typeof schema.timestamp_column !== 'string' || schema.timestamp_column === '')
    throw new UsageError('the schema needs its timestamp column: give --schema-timestamp-column or --schema', {
      hint: 'e.g. --schema-timestamp-column date',
    });

  const body: Record<string, unknown> = { model_id: model, data, schema };
  if (options.parameters !== undefined) {
    const parameters = checkObject(
      '--parameters',
      await io.readJson('--parameters', options.parameters),
      'prediction_length',
    );
    const unknown = Object.keys(parameters).find((k) => k !== 'prediction_length');
    if (unknown !== undefined)
      throw new UsageError(`--parameters: unknown field "${unknown}"`, { hint: 'the field is prediction_length' });
    const n = parameters.prediction_length;
    if (n !== undefined && !(typeof n === 'number' && Number.isInteger(n) && n >= 1))
      throw new UsageError(`--parameters: prediction_length must be an integer >= 1, got ${JSON.stringify(n)}`);
    body.parameters = parameters;
  } else if (options.parametersPredictionLength !== undefined) {
    body.parameters = {
      prediction_length: parseIntegerFlag('--parameters-prediction-length', options.parametersPredictionLength, {
        min: 1,
      }),
    };
  }
  return body;
}
