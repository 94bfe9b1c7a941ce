/**
 * Asks for a missing --id-or-name or --model on a terminal: a list from the provider when it can list them, else
 * free text. A listing that fails is not fatal here; the person can still type the name.
 */
import type { ResolvedProfile } from '../contract/profile.js';
import type { Context } from '../context.js';
import { Interrupted } from '../contract/errors.js';
import type { ModelsScope } from '../contract/adapter.js';

/**
 * What the command will ask the model to do, in the listing's `functions` words (watsonx's function ids): only models
 * that can are offered, so Enter on the first one never ends in "does not support function" (a rerank model for
 * complete). A listing that says nothing of functions (the other providers) is offered whole.
 */
export type TargetUse = 'text_generation' | 'text_chat' | 'embedding' | 'rerank';

export async function askTarget(
  ctx: Context,
  profile: ResolvedProfile,
  scope: ModelsScope,
  use?: TargetUse,
): Promise<string> {
  const prompter = await ctx.prompter();
  const noun = scope === 'deployments' ? 'Deployment (id or serving name)' : 'Model';
  const ids = await listIds(ctx, profile, scope, use);
  if (ids.length > 0)
    return prompter.select(
      `${noun}:`,
      ids.map((id) => ({ value: id })),
      {},
    );
  return prompter.text(`${noun}:`);
}

async function listIds(
  ctx: Context,
  profile: ResolvedProfile,
  scope: ModelsScope,
  use: TargetUse | undefined,
): Promise<string[]> {
  const { listModels, loadModelsOperation } = await import('../flows/models.js');
  const { calleeFor } = await import('../call/callee.js');
  try {
    const op = await loadModelsOperation(profile.provider);
    if (!op.scopes.includes(scope)) return [];
    const listing = await listModels(ctx, profile, await calleeFor(profile.provider), op, { scope });
    const fit = listing.entries.filter(
      (e) => use === undefined || e.functions === undefined || e.functions.length === 0 || e.functions.includes(use),
    );
    return [...new Set(fit.map((e) => e.serving_name ?? e.id))];
  } catch (e) {
    if (e instanceof Interrupted || ctx.signal.aborted) throw e;
    ctx.reporter.warn(`cannot list ${scope} (${(e as Error).message}); type the name instead`);
    return [];
  }
}
