/**
 * The options of `time-series forecast` (cpd-cli wx-ai time-series forecast), as plain data: the JSON options and
 * their granular twins, each pair exclusive as in cpd-cli (`--schema` vs `--schema-*`, `--parameters` vs
 * `--parameters-prediction-length`). src/flows/forecast-request.ts reads them.
 */
import type { OptionSpec, OptionValues } from '../command.js';

export const FORECAST_FLAG_SPECS = [
  { flags: '--model-id <id>', description: 'the time-series model, e.g. ibm/granite-ttm-512-96-r2 (required)' },
  {
    flags: '--data <json|@file>',
    description: 'the history as JSON or @file: an object of columns, {"date": [...], "sales": [...]} (required)',
  },
  {
    flags: '--schema <json|@file>',
    description: 'timestamp_column, id_columns, freq, target_columns as JSON or @file; not with --schema-* flags',
  },
  { flags: '--schema-timestamp-column <column>', description: 'the column that holds the time of each row' },
  {
    flags: '--schema-id-columns <list>',
    description: 'the columns that tell one series from another: comma-separated or a JSON array; repeatable',
    repeatable: true,
  },
  { flags: '--schema-freq <freq>', description: 'the time between rows, e.g. 1h, 15min, D (inferred when left out)' },
  {
    flags: '--schema-target-columns <list>',
    description: 'the columns to forecast (default: every other column): comma-separated or a JSON array; repeatable',
    repeatable: true,
  },
  {
    flags: '--parameters <json|@file>',
    description: 'the forecast parameters as JSON or @file, {"prediction_length": N}; not with --parameters-*',
  },
  {
    flags: '--parameters-prediction-length <n>',
    description: "how many periods to forecast, >= 1 and at most the model's default (96 for the TTM models)",
  },
] as const satisfies readonly OptionSpec[];

export type ForecastFlagOptions = OptionValues<typeof FORECAST_FLAG_SPECS>;

/** Each JSON option and the granular flags it cannot be given with. */
export const FORECAST_EXCLUSIONS = [
  ['--schema', '--schema-timestamp-column', '--schema-id-columns', '--schema-freq', '--schema-target-columns'],
  ['--parameters', '--parameters-prediction-length'],
] as const;
