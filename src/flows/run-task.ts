/**
 * The one flow behind evaluate, explain, qa and summarize: the provider must have the task (else a usage error
 * naming both, before anything is read or sent), then the request, `--dry-run`, the call, and the result as text
 * for people or as JSON/YAML (with `-j`) for scripts.
 */
import type { ResolvedProfile } from '../contract/profile.js';
import type { Context } from '../context.js';
import { UsageError } from '../contract/errors.js';
import { readAnswer } from '../call/answer.js';
import type { OutputFormat } from '../output/format.js';
import { loadTaskOperation, providersWith } from './tasks.js';
import type { TaskName, TaskOperation, TaskOperations } from '../contract/adapter.js';

export type TaskRequestOf<T extends TaskName> = Parameters<TaskOperations[T]['buildRequest']>[0];
type TaskResultOf<T extends TaskName> = ReturnType<TaskOperations[T]['parseResponse']>;

/**
 * Runs one task. `prepare` builds the request once the provider is known to have the task: it reads files and
 * resolves the model, so a wrong provider is reported before any of that can fail.
 */
export async function runTask<T extends TaskName>(
  ctx: Context,
  task: T,
  prepare: (profile: ResolvedProfile) => Promise<TaskRequestOf<T>>,
): Promise<number> {
  const format = ctx.output().format;
  const profile = await ctx.connect(await ctx.profile());
  const loaded = await loadTaskOperation(task, profile.provider);
  if (loaded === undefined) {
    throw new UsageError(
      `${task} is not supported by ${profile.provider}; it works with ${providersWith(task).join(', ')}`,
      {
        hint: `use a profile whose provider is ${providersWith(task).join(' or ')} (e.g. --profile local-aa)`,
      },
    );
  }
  // TaskOperations[T] is, for a generic T, the union of all four; for the T at hand it is this one.
  const operation = loaded as unknown as TaskOperation<TaskRequestOf<T>, TaskResultOf<T>>;
  const request = await prepare(profile);
  const spec = operation.buildRequest(request, profile);
  const { printDryRun, requestJson } = await import('../call/send.js');
  if (ctx.globals.dryRun) {
    await printDryRun(ctx, profile, spec);
    return 0;
  }

  const { calleeFor } = await import('../call/callee.js');
  const { startSpinner } = await import('../output/spinner.js');
  const provider = await calleeFor(profile.provider);
  const spinner = await startSpinner(ctx, `waiting for ${provider.displayName}…`);
  let answer: Awaited<ReturnType<typeof requestJson>>;
  try {
    answer = await requestJson(ctx, profile, provider, spec);
  } finally {
    spinner.stop();
  }
  const json = answer.json;
  const result: TaskResultOf<T> = readAnswer(() => operation.parseResponse(json, request), answer.context);
  const { stdoutColor } = await import('../output/stdout-color.js');
  const { COLOUR_HEAT_MAP } = await import('../output/heat-map.js');
  const view = stdoutColor(ctx) ? { heatMap: COLOUR_HEAT_MAP } : {};
  await present(
    ctx,
    format,
    result,
    () => operation.renderText(result, request, view),
    task,
    view.heatMap !== undefined,
  );
  return 0;
}

/** Text for people unless a format or a query asks for data (src/flows/write-result.ts). */
async function present(
  ctx: Context,
  format: OutputFormat,
  result: unknown,
  text: () => string,
  task: TaskName,
  painted = false,
): Promise<void> {
  const { writeResult } = await import('./write-result.js');
  await writeResult(
    ctx,
    format,
    result,
    () => {
      const shown = text();
      // Nothing on stdout is right for a script; a person should still learn that the call worked.
      if (shown === '') ctx.reporter.info(`${task}: the answer holds no results`);
      return shown;
    },
    { painted },
  );
}
