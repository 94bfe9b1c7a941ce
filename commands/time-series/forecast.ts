import type { CommandSpec, OptionsOf } from '../../src/command.js';
import { defineCommand } from '../../src/define-command.js';
import type { Context } from '../../src/context.js';
import { FORECAST_FLAG_SPECS } from '../../src/options/forecast-flag-specs.js';
import { SCOPE_FLAG_SPECS } from '../../src/options/scope-flags.js';

const spec = {
  path: ['time-series', 'forecast'],
  summary: 'Forecast a time series from its history (cpd-cli wx-ai time-series forecast)',
  description:
    'POST /ml/v1/time_series/forecast in the space or project the scope options or the profile name. --data is ' +
    "the history, one array per column; every series must be as long as the model's context (512, 1024 or 1536 " +
    'rows for the granite-ttm models) and evenly spaced in time. The answer holds prediction_length rows per ' +
    "series, for each target column. A table by default; -o json or yaml prints the service's answer as it came.",
  options: [...FORECAST_FLAG_SPECS, ...SCOPE_FLAG_SPECS],
  examples: [
    'textgen --profile local time-series forecast --model-id ibm/granite-ttm-512-96-r2 --data @history.json \\\n' +
      '      --schema-timestamp-column date --schema-id-columns ID1 --schema-freq 1h --parameters-prediction-length 4',
    'textgen --profile local time-series forecast --model-id ibm/granite-ttm-512-96-r2 --data @history.json \\\n' +
      '      --schema \'{"timestamp_column": "date", "target_columns": ["TARGET1"]}\' -o json -j "results[0].TARGET1[:3]"',
  ],
} as const satisfies CommandSpec;

async function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  const { forecastBody } = await import('../../src/flows/forecast-request.js');
  const body = await forecastBody(options, ctx);
  const { runWxAi } = await import('../../src/flows/wx-ai.js');
  const { forecastText } = await import('../../src/flows/wx-ai-text.js');
  return runWxAi(ctx, options, {
    command: 'time-series forecast',
    needsScope: true,
    call: (scope) => ({ kind: 'time-series.forecast', scope, body }),
    text: forecastText,
  });
}

export const command = defineCommand({ spec, helpGroup: 'Generate:', run });
