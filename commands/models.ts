import type { CommandSpec, OptionsOf } from '../src/command.js';
import { defineCommand } from '../src/define-command.js';
import type { Context } from '../src/context.js';
import { UsageError } from '../src/contract/errors.js';

const spec = {
  path: ['models'],
  summary: 'List the models or deployments an endpoint offers, or describe one model',
  description:
    'watsonx: foundation model specs (every page), or with --deployments the deployments of the ' +
    "profile's space or project. Azure OpenAI: the resource's deployments. OpenAI-compatible: " +
    '/v1/models. Aleph Alpha: /models_available. Open Inference: the repository index (Triton) or ' +
    '/v2/models (KServe), whichever the server has; NAME describes one model (inputs, outputs, ' +
    'versions). Text output is a table; -o json prints the same entries for every provider ({id, kind, ' +
    "name, provider, model, status, ...}); --raw the provider's own items.",
  args: '[name]',
  options: [
    {
      flags: '--deployments [bool]',
      description: 'list deployments instead of models (watsonx; Azure lists deployments anyway)',
    },
    {
      flags: '--page-size <n>',
      description: 'items per request where the service pages (watsonx: 1 to 200, default 200); every page is read',
    },
    { flags: '--model-version <version>', description: 'with NAME: the model version to describe (Open Inference)' },
    {
      flags: '--raw [bool]',
      description: "print the provider's own items (of every page) instead of the canonical entries",
    },
  ],
  examples: [
    'textgen --profile local models',
    'textgen --profile local models --deployments -o json',
    'textgen --profile local-oip models demo',
  ],
} as const satisfies CommandSpec;

async function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  const { parseBooleanFlag } = await import('../src/options/flag-values.js');
  const { parseIntegerFlag } = await import('../src/options/integer-flag.js');

  const format = ctx.output().format;
  const raw = parseBooleanFlag('--raw', options.raw) === true;
  const deployments = parseBooleanFlag('--deployments', options.deployments) === true;
  const name = options.args[0];
  if (name === '') throw new UsageError('NAME must not be empty');
  const version = options.modelVersion;
  if (version !== undefined && name === undefined)
    throw new UsageError('--model-version needs a model NAME to describe');
  if (name !== undefined && deployments) throw new UsageError('give a model NAME or --deployments, not both');
  const pageSize =
    options.pageSize !== undefined ? parseIntegerFlag('--page-size', options.pageSize, { min: 1 }) : undefined;

  const profile = await ctx.connect(await ctx.profile());
  const kind = profile.provider;
  // Descriptions and names come from the service: on a terminal their control characters are shown, not obeyed.
  const { visibleControls } = await import('../src/output/visible.js');
  const shown = (text: string) => (ctx.terminal.stdoutIsTTY ? visibleControls(text) : text);
  const { loadModelsOperation } = await import('../src/flows/models.js');
  const op = await loadModelsOperation(kind);
  if (name !== undefined && !op.describe) {
    throw new UsageError(
      `models NAME (one model's metadata) is not supported by ${kind}; it works with open-inference`,
      {
        hint: `list them all with "textgen models", and pick one with -j "[?id=='${name}']"`,
      },
    );
  }
  if (deployments && !op.scopes.includes('deployments')) {
    throw new UsageError(`models --deployments is not supported by ${kind}; it works with watsonx, azure-openai`);
  }
  if (pageSize !== undefined) {
    if (op.maxPageSize === undefined)
      throw new UsageError(
        `--page-size is not supported by ${kind}: it answers with the whole list at once; it works with watsonx`,
      );
    if (pageSize > op.maxPageSize)
      throw new UsageError(`--page-size must be an integer from 1 to ${op.maxPageSize} for ${kind}, got ${pageSize}`);
  }
  const query = {
    scope: deployments ? ('deployments' as const) : op.scopes[0]!,
    ...(pageSize !== undefined ? { pageSize } : {}),
  };

  const { calleeFor } = await import('../src/call/callee.js');
  const callee = await calleeFor(kind);
  if (ctx.globals.dryRun) {
    const { printDryRun } = await import('../src/call/send.js');
    // Later pages and fallback routes depend on the answers; the first request is the one to try by hand.
    const first =
      name !== undefined ? op.describe!.request(profile, name, version) : op.listRequests(profile, query)[0]!;
    await printDryRun(ctx, profile, first);
    return 0;
  }

  const { writeResult } = await import('../src/flows/write-result.js');
  const { modelDetails, modelsTable } = await import('../src/flows/models-text.js');
  if (name !== undefined) {
    const { describeModel } = await import('../src/flows/models.js');
    const { entry, raw: body } = await describeModel(ctx, profile, callee, op.describe!, name, version);
    await writeResult(ctx, format, raw ? body : entry, () =>
      shown(raw ? `${JSON.stringify(body, null, 2)}\n` : modelDetails(entry)),
    );
    return 0;
  }
  const { listModels } = await import('../src/flows/models.js');
  const listing = await listModels(ctx, profile, callee, op, query);
  if (listing.entries.length === 0 && format === 'text' && !ctx.output().jmes && !raw) {
    ctx.reporter.info(`${kind} lists no ${query.scope}`);
    return 0;
  }
  await writeResult(ctx, format, raw ? listing.raw : listing.entries, () =>
    shown(raw ? `${JSON.stringify(listing.raw, null, 2)}\n` : modelsTable(listing.entries, terminalWidth(ctx))),
  );
  return 0;
}

/** The terminal's width when stdout is one (COLUMNS, as the shell exports it, else the tty's own), else undefined. */
function terminalWidth(ctx: Context): number | undefined {
  if (!ctx.terminal.stdoutIsTTY) return undefined;
  const fromEnv = Number(ctx.env.COLUMNS);
  if (Number.isInteger(fromEnv) && fromEnv > 0) return fromEnv;
  return process.stdout.columns || 80;
}

export const command = defineCommand({ spec, helpGroup: 'Inspect:', run });
