/**
 * The flow behind the friendly `rerank`: a query and texts → the texts ordered by how well they answer it, in one
 * canonical shape for every provider whose adapter has a `rerank` loader (docs/design.md §3). The provider must have
 * reranking (else a usage error naming those that do, before anything is read or sent); then the texts, `--dry-run`
 * or the one request, and the result sorted by score, best first. Loaded only by `rerank`.
 */
import type { Context } from '../context.js';
import type { ModelEntry, RerankAnswer, RerankRequest, RerankResult } from '../contract/adapter.js';
import { Interrupted, UsageError } from '../contract/errors.js';
import type { ProviderKind, ResolvedProfile } from '../contract/profile.js';
import { adapterFor, kindsWith } from '../../profiles/registry.js';

export interface RerankCommand {
  query: string | undefined;
  /** -m/--model; the profile's defaults.model stands in when absent. */
  model: string | undefined;
  /** --input, each one text. */
  input: readonly string[];
  /** --inputs: a JSON array of strings or of {text} objects (cpdctl's RerankInput[]), inline or @file. */
  inputs: string | undefined;
  topN: number | undefined;
  truncateInputTokens: number | undefined;
}

/** The kinds whose adapter reranks, in the order messages list them. */
export function rerankProviders(): ProviderKind[] {
  return kindsWith((adapter) => adapter.rerank !== undefined);
}

/** The texts of `--inputs`: strings, or cpdctl's `[{"text": …}]`. */
export function rerankTexts(flag: string, value: unknown): string[] {
  if (!Array.isArray(value)) throw new UsageError(`${flag} must be a JSON array of texts (strings or {"text": …})`);
  return value.map((item, i) => {
    const text =
      typeof item === 'string'
        ? item
        : typeof item === 'object' && item !== null && !Array.isArray(item)
          ? (item as { text?: unknown }).text
          : undefined;
    if (typeof text !== 'string') throw new UsageError(`${flag}[${i}] is not a text (a string or {"text": "…"})`);
    return text;
  });
}

/** One answer → the canonical result: each scored text with its rank, best first (ties keep the input order). */
export function rankedResult(request: RerankRequest, answer: RerankAnswer): RerankResult {
  const sorted = [...answer.scores].sort((a, b) => b.score - a.score || a.index - b.index);
  return {
    model: answer.model ?? request.model,
    query: request.query,
    results: sorted.map((s, i) => ({
      rank: i + 1,
      index: s.index,
      score: s.score,
      text: request.documents[s.index]!,
    })),
    ...(answer.inputTokenCount !== undefined ? { input_token_count: answer.inputTokenCount } : {}),
  };
}

/** Long texts would push every row off the screen; -o json has them whole. */
const TEXT_WIDTH = 60;

export async function rerankTable(result: RerankResult): Promise<string> {
  const { renderTable, truncate } = await import('../output/text-table.js');
  return renderTable(
    ['RANK', 'SCORE', 'INDEX', 'TEXT'],
    result.results.map((r) => [
      String(r.rank),
      r.score.toFixed(4),
      String(r.index),
      truncate(r.text.replace(/\s+/g, ' '), TEXT_WIDTH),
    ]),
  );
}

/**
 * The model when -m is absent. A profile's defaults.model is usually a generation model (the built-in `local` one
 * is), and sending it ends in the service's "does not support function rerank". Where the listing says what each
 * model does (watsonx's `functions`), the default is kept when it reranks, else the listing's first rerank model is
 * used, with a note on stderr. A listing that fails, says nothing of functions, or has no rerank model leaves the
 * default as it was; --dry-run sends nothing, so it keeps the default too.
 */
export async function defaultRerankModel(ctx: Context, profile: ResolvedProfile): Promise<string | undefined> {
  const fallback = profile.defaults.model || undefined;
  if (ctx.globals.dryRun) return fallback;
  const { listModels, loadModelsOperation } = await import('./models.js');
  const { calleeFor } = await import('../call/callee.js');
  let entries: ModelEntry[];
  try {
    const op = await loadModelsOperation(profile.provider);
    if (!op.scopes.includes('models')) return fallback;
    entries = (await listModels(ctx, profile, await calleeFor(profile.provider), op, { scope: 'models' })).entries;
  } catch (e) {
    if (e instanceof Interrupted || ctx.signal.aborted) throw e;
    return fallback;
  }
  const named = (e: ModelEntry) => e.serving_name ?? e.id;
  const rerankers = entries.filter((e) => e.functions?.includes('rerank'));
  if (rerankers.length === 0) return fallback;
  if (fallback !== undefined) {
    const current = entries.find((e) => e.id === fallback || e.serving_name === fallback);
    // Only a listing that names the default and says it cannot rerank overrides it.
    if (current === undefined || current.functions === undefined || current.functions.length === 0) return fallback;
    if (current.functions.includes('rerank')) return fallback;
  }
  const chosen = named(rerankers[0]!);
  ctx.reporter.info(
    fallback === undefined
      ? `using rerank model ${chosen} (the profile has no defaults.model); -m chooses another`
      : `using rerank model ${chosen} (the profile's ${fallback} does not rerank); -m chooses another`,
  );
  return chosen;
}

export async function runRerank(ctx: Context, command: RerankCommand): Promise<number> {
  const format = ctx.output().format;
  if (command.input.length > 0 && command.inputs !== undefined)
    throw new UsageError('--input and --inputs cannot be used together: give the texts one way');
  let documents: string[] | undefined;
  if (command.inputs !== undefined) {
    const { readJsonOption } = await import('../options/json-option.js');
    const { readStdinText } = await import('../options/input.js');
    documents = rerankTexts(
      '--inputs',
      await readJsonOption('--inputs', command.inputs, { cwd: ctx.cwd, stdin: () => readStdinText(ctx.stdin) }),
    );
  } else if (command.input.length > 0) documents = [...command.input];
  const missing = [
    ...(command.query === undefined || command.query === '' ? ['QUERY'] : []),
    ...(documents === undefined ? ['--input (or --inputs)'] : []),
  ];
  if (missing.length > 0)
    throw new UsageError(`missing required ${missing.length === 1 ? 'option' : 'options'}: ${missing.join(', ')}`, {
      hint: 'textgen rerank "QUERY" --input "first text" --input "second text"',
    });
  const empty = documents!.indexOf('');
  if (empty >= 0) throw new UsageError(`text ${empty + 1} is empty: every text to rank needs some words`);
  if (documents!.length === 0) throw new UsageError('--inputs holds no texts to rank');

  const profile = await ctx.connect(await ctx.profile());
  const load = adapterFor(profile.provider).rerank;
  if (load === undefined) {
    throw new UsageError(
      `rerank is not supported by ${profile.provider}; it works with ${rerankProviders().join(', ')}`,
      {
        hint: 'use a profile whose service reranks (watsonx, or an OpenAI-compatible server with /v1/rerank such as vLLM)',
      },
    );
  }
  const op = await load();
  if (documents!.length > op.maxInputs)
    throw new UsageError(
      `${profile.provider} ranks at most ${op.maxInputs} texts per request, got ${documents!.length}`,
    );
  let model = command.model ?? (await defaultRerankModel(ctx, profile));
  if (model === undefined && ctx.terminal.interactive) {
    const { askTarget } = await import('../prompt/ask-target.js');
    model = await askTarget(ctx, profile, 'models', 'rerank');
  }
  if (model === undefined)
    throw new UsageError(`missing required option: --model (profile "${profile.name}" has no defaults.model)`, {
      hint: 'give a rerank model, e.g. -m cross-encoder/ms-marco-minilm-l-12-v2',
    });
  const request: RerankRequest = {
    model,
    query: command.query!,
    documents: documents!,
    ...(command.topN !== undefined ? { topN: command.topN } : {}),
    ...(command.truncateInputTokens !== undefined ? { truncateInputTokens: command.truncateInputTokens } : {}),
  };
  const spec = op.buildRequest(request, profile);
  const { printDryRun, requestJson } = await import('../call/send.js');
  if (ctx.globals.dryRun) {
    await printDryRun(ctx, profile, spec);
    return 0;
  }
  const { calleeFor } = await import('../call/callee.js');
  const answer = await requestJson(ctx, profile, await calleeFor(profile.provider), spec);
  const { readAnswer } = await import('../call/answer.js');
  const parsed = readAnswer(() => op.parseResponse(answer.json, request), answer.context);
  const result = rankedResult(request, parsed);
  const table = await rerankTable(result);
  const { writeResult } = await import('./write-result.js');
  await writeResult(ctx, format, result, () => table);
  return 0;
}
