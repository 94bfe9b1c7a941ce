/**
 * The flow behind `embed`: the provider must have embeddings (else a usage error naming both, before anything is
 * read or sent) and understand every setting given; then the texts, the batches, `--dry-run` or the requests
 * (in order, or a few at a time where the service takes one text per request), and one result for all of them.
 * Loaded only by `embed`.
 */
import type { ResolvedProfile } from '../contract/profile.js';
import type { Context } from '../context.js';
import { UsageError } from '../contract/errors.js';
import { readAnswer } from '../call/answer.js';
import type { HttpRequestSpec } from '../contract/http.js';
import { printDryRun, requestJson, type Callee } from '../call/send.js';
import { mapBounded } from './bounded-map.js';
import { MISSING_TEXT, readEmbedInputs, type EmbedInputSource } from './embed-inputs.js';
import {
  checkEmbedSettings,
  combineAnswers,
  embedProviders,
  embeddingLines,
  loadEmbedOperation,
  singleVector,
  splitBatches,
} from './embed.js';
import { UnexpectedAnswer } from '../contract/errors.js';
import type {
  EmbedBatchAnswer,
  EmbedOperation,
  EmbedRequest,
  EmbedResult,
  EmbedSettings,
} from '../contract/adapter.js';

export interface EmbedCommand {
  /** -m/--model; the profile's defaults.model stands in when absent. */
  model: string | undefined;
  settings: EmbedSettings;
  source: EmbedInputSource;
  /** --similarity: the cosine-similarity matrix of the texts (instead of the vectors in text output). */
  similarity?: boolean;
  /** --image / --prompt-json: one Aleph Alpha multimodal prompt. */
  multimodal?: { images: string[]; promptJson?: string | undefined };
}

export interface PlannedRequest {
  batch: string[];
  spec: HttpRequestSpec;
}

export async function runEmbed(ctx: Context, command: EmbedCommand): Promise<number> {
  const format = ctx.output().format;
  const profile = await ctx.connect(await ctx.profile());
  const op = await loadEmbedOperation(profile.provider);
  if (op === undefined) {
    throw new UsageError(
      `embed is not supported by ${profile.provider}; it works with ${embedProviders().join(', ')}`,
      {
        hint: 'use a profile whose provider has an embeddings endpoint (e.g. --profile local-aa)',
      },
    );
  }
  await checkEmbedSettings(op, profile.provider, command.settings);
  if (
    command.similarity &&
    ((command.settings.layers?.length ?? 1) > 1 || (command.settings.pooling?.length ?? 1) > 1)
  ) {
    throw new UsageError('--similarity compares one vector per text: give one --layers value and one --pooling value');
  }
  let model = command.model ?? (profile.defaults.model || undefined);
  if (model === undefined && ctx.terminal.interactive) {
    // On a terminal a missing model is asked for, from the models that can embed (as complete does).
    const { askTarget } = await import('../prompt/ask-target.js');
    model = await askTarget(ctx, profile, 'models', 'embedding');
  }
  const multimodal =
    command.multimodal && (command.multimodal.images.length > 0 || command.multimodal.promptJson !== undefined)
      ? command.multimodal
      : undefined;
  let prompt: unknown;
  let inputs: string[] | undefined;
  if (multimodal) {
    if (command.source.inputFile !== undefined)
      throw new UsageError(
        '--input-file holds many texts; an --image or --prompt-json prompt is one: give its text as words',
      );
    const text = command.source.words.length > 0 ? command.source.words.join(' ') : undefined;
    const { promptsFor } = await import('./multimodal.js');
    const { cliFileIo } = await import('../options/file-io.js');
    prompt = await (await promptsFor(profile)).buildPrompt(
      { text, images: multimodal.images, promptJson: multimodal.promptJson },
      cliFileIo({ cwd: ctx.cwd, signal: ctx.signal }),
    );
    inputs = [text ?? '(prompt items)'];
  } else {
    inputs = await readEmbedInputs(command.source, {
      cwd: ctx.cwd,
      stdin: ctx.stdin,
      stdinIsTTY: ctx.terminal.stdinIsTTY,
    });
  }
  if (model === undefined && inputs !== undefined) {
    throw new UsageError(`missing required option: --model (profile "${profile.name}" has no defaults.model)`, {
      hint: 'give the embedding model with -m',
    });
  }
  if (model === undefined || inputs === undefined) {
    const { missingFlagsError } = await import('../options/input.js');
    throw missingFlagsError([...(model === undefined ? ['--model'] : []), MISSING_TEXT]);
  }
  const request: EmbedRequest = {
    model,
    inputs,
    settings: command.settings,
    ...(prompt !== undefined ? { prompt } : {}),
  };
  const plan = planEmbedRequests(op, request, profile);

  if (ctx.globals.dryRun) {
    // The batches do not depend on one another's answers, so every request is shown, in the order it would go.
    for (const p of plan) await printDryRun(ctx, profile, p.spec);
    return 0;
  }

  const { calleeFor } = await import('../call/callee.js');
  const { startSpinner } = await import('../output/spinner.js');
  const callee = await calleeFor(profile.provider);
  const spinner = await startSpinner(
    ctx,
    `embedding ${inputs.length === 1 ? '1 text' : `${inputs.length} texts`} with ${callee.displayName}…`,
  );
  let result: EmbedResult;
  try {
    result = await sendEmbedRequests(ctx, profile, callee, op, request, plan);
  } finally {
    spinner.stop();
  }
  const { writeResult } = await import('./write-result.js');
  if (command.similarity) {
    const { similarityMatrix, renderSimilarityMatrix } = await import('../output/similarity-matrix.js');
    const { stdoutColor } = await import('../output/stdout-color.js');
    const { visibleControls } = await import('../output/visible.js');
    const matrix = similarityMatrix(result.embeddings.map((e, i) => vectorOf(e.embedding, i)));
    const texts = inputs;
    const color = stdoutColor(ctx);
    await writeResult(
      ctx,
      format,
      { ...result, similarity: matrix },
      () => renderSimilarityMatrix(texts.map(visibleControls), matrix, color),
      { painted: color },
    );
    return 0;
  }
  await writeResult(ctx, format, result, () => embeddingLines(result));
  return 0;
}

/** The one vector of text i; a result of several layers or poolings (checked before sending) would be a bug. */
function vectorOf(embedding: EmbedResult['embeddings'][number]['embedding'], i: number): number[] {
  const v = singleVector(embedding);
  if (v === undefined) throw new Error(`embedding ${i} holds several vectors; --similarity needs one per text`);
  return v;
}

/** The inputs in batches the service takes, each with its request, in order. */
export function planEmbedRequests(
  op: EmbedOperation,
  request: EmbedRequest,
  profile: ResolvedProfile,
): PlannedRequest[] {
  return splitBatches(request.inputs, op.maxBatch(request)).map((batch) => ({
    batch,
    spec: op.buildRequest(batch, request, profile),
  }));
}

/**
 * Sends the planned requests (a few at a time when the operation allows it) and combines the answers in the inputs'
 * order. Any failed batch fails the whole command: no partial result is returned.
 */
export async function sendEmbedRequests(
  ctx: Context,
  profile: ResolvedProfile,
  callee: Callee,
  op: EmbedOperation,
  request: EmbedRequest,
  plan: readonly PlannedRequest[],
): Promise<EmbedResult> {
  const concurrency = op.concurrency?.(request) ?? 1;
  const answers = await mapBounded(plan, concurrency, async ({ batch, spec }, i): Promise<EmbedBatchAnswer> => {
    const answer = await requestJson(ctx, profile, callee, spec);
    const context = { ...answer.context, where: plan.length > 1 ? ` to request ${i + 1} of ${plan.length}` : '' };
    const json = answer.json;
    const parsed: EmbedBatchAnswer = readAnswer(() => op.parseResponse(json, batch, request), context);
    if (parsed.embeddings.length !== batch.length) {
      throw new UnexpectedAnswer(
        `the answer holds ${parsed.embeddings.length} embeddings for ${batch.length} texts`,
        context,
      );
    }
    return parsed;
  });
  return combineAnswers(request.model, answers);
}
