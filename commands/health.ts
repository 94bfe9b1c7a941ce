import type { CommandSpec, OptionsOf } from '../src/command.js';
import { defineCommand } from '../src/define-command.js';
import type { Context } from '../src/context.js';

const spec = {
  path: ['health'],
  summary: 'Check that an endpoint is up: status, version and latency (exit 0 healthy, 4 unhealthy, 5 unreachable)',
  description:
    'The cheapest real check per provider: watsonx and Azure OpenAI an authenticated list call of one ' +
    'item, OpenAI-compatible GET /v1/models, Aleph Alpha GET /version, Open Inference /v2/health/live ' +
    'and /ready (by status code) plus GET /v2 for the version. Exit codes: 0 healthy, 3 credentials ' +
    'refused, 4 unhealthy (an error answer, or not ready), 5 unreachable. No retries unless --retries ' +
    'is given, and at most 30 s per answer unless --timeout is given. The verdict goes to stdout in every case.',
  options: [],
  examples: [
    'textgen --profile local health',
    'textgen --profile local-oip health -o json',
    'textgen --profile local-aa health --retries 1 --timeout 5000',
  ],
} as const satisfies CommandSpec;

async function run(_options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  const format = ctx.output().format;
  const { checkHealth, healthExitCode, healthLine, healthProfile, loadHealthOperation } = await import(
    '../src/flows/health.js'
  );
  const profile = healthProfile(await ctx.connect(await ctx.profile()), ctx.globals);
  const op = await loadHealthOperation(profile.provider);
  const { calleeFor } = await import('../src/call/callee.js');
  const callee = await calleeFor(profile.provider);

  if (ctx.globals.dryRun) {
    const { printDryRun } = await import('../src/call/send.js');
    for (const probe of op.probes(profile)) await printDryRun(ctx, profile, probe.request);
    return 0;
  }
  const { report, authRefused } = await checkHealth(ctx, profile, callee, op);
  const { writeResult } = await import('../src/flows/write-result.js');
  // The version and status words come from the service: writeResult's text is escaped on a terminal.
  await writeResult(ctx, format, report, () => healthLine(report));
  return healthExitCode(report, authRefused);
}

export const command = defineCommand({ spec, helpGroup: 'Inspect:', run });
