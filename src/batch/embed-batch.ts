/**
 * `embed --batch`: one text per line, one request per line, one record per line whose `result` is what
 * `embed -o json` prints for that text ({model, embeddings: [{index: 0, embedding}], input_token_count}). A line's
 * `parameters` hold embed settings by their wire names (truncate_input_tokens, layers, pooling, tokens, normalize,
 * representation, compress_to_size, nice) and override the flags for that line. Loaded only lazily (by embed's run).
 */
import type { Context } from '../context.js';
import { UsageError } from '../contract/errors.js';
import { answerContext, answerJson, readAnswer } from '../call/answer.js';
import { parseEmbedSettings } from '../flows/embed-flags.js';
import { checkEmbedSettings, combineAnswers, embedProviders, loadEmbedOperation } from '../flows/embed.js';
import { UnexpectedAnswer } from '../contract/errors.js';
import type { EmbedRequest, EmbedSetting, EmbedSettings } from '../contract/adapter.js';
import { printDryRun } from '../call/send.js';
import { parseBatchLine } from './batch-line.js';
import { checkBatchFlags } from './common-checks.js';
import { compileResultQuery, resultJson } from './json-query.js';
import { runBatch } from './run-batch.js';
import { createLineSender } from '../call/line-sender.js';
import type { BatchSettings } from '../options/batch-settings.js';

export interface EmbedBatchCommand {
  model: string | undefined;
  settings: EmbedSettings;
  /** Flags that give texts or change the output in ways a batch cannot (refused with --batch). */
  inputFlags: string[];
  refused: string[];
  raw: Record<string, unknown>;
}

interface EmbedLine {
  request: EmbedRequest;
}

/** Wire name → the flag's commander key, for parseEmbedSettings. */
const SETTING_KEYS: Record<EmbedSetting, string> = {
  truncate_input_tokens: 'truncateInputTokens',
  layers: 'layers',
  pooling: 'pooling',
  tokens: 'tokens',
  normalize: 'normalize',
  representation: 'representation',
  compress_to_size: 'compressToSize',
  nice: 'nice',
};

/** A line's `parameters` as embed settings: values as the flags would give them, so the same checks apply. */
function lineSettings(parameters: Record<string, unknown>): EmbedSettings {
  const options: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(parameters)) {
    const flagKey = SETTING_KEYS[key as EmbedSetting];
    if (flagKey === undefined || !Object.hasOwn(SETTING_KEYS, key)) {
      throw new UsageError(
        `"parameters" of the line: unknown embed setting "${key}" (known: ${Object.keys(SETTING_KEYS).join(', ')})`,
      );
    }
    options[flagKey] = typeof value === 'boolean' ? value : Array.isArray(value) ? value.map(String) : String(value);
  }
  try {
    return parseEmbedSettings(options);
  } catch (e) {
    if (e instanceof UsageError) throw new UsageError(`"parameters" of the line: ${e.message}`);
    throw e;
  }
}

export async function runEmbedBatch(
  ctx: Context,
  command: EmbedBatchCommand,
  settings: BatchSettings,
): Promise<number> {
  checkBatchFlags(ctx, settings, { inputFlags: command.inputFlags, raw: command.raw, refused: command.refused });
  const query = await compileResultQuery(ctx.output().jmes);
  const profile = await ctx.connect(await ctx.profile());
  const op = await loadEmbedOperation(profile.provider);
  if (op === undefined)
    throw new UsageError(`embed is not supported by ${profile.provider}; it works with ${embedProviders().join(', ')}`);
  await checkEmbedSettings(op, profile.provider, command.settings);
  const model = command.model ?? (profile.defaults.model || undefined);
  if (model === undefined)
    throw new UsageError(`missing required option: --model (profile "${profile.name}" has no defaults.model)`, {
      hint: 'give the embedding model with -m',
    });
  // A line's own settings are checked against what the provider understands, then its combination rules.
  const known = new Set(op.settings);
  const { calleeFor } = await import('../call/callee.js');
  const callee = await calleeFor(profile.provider);
  const sender = await createLineSender(ctx, profile, callee);

  const specOf = (line: EmbedLine) => op.buildRequest(line.request.inputs, line.request, profile);
  // What the profile lacks (a space id) would fail every line: a usage error now, before any line is read.
  specOf({ request: { model, inputs: ['x'], settings: command.settings } });
  return runBatch<EmbedLine>(ctx, settings, {
    retries: profile.retries,
    begin: () => sender.begin(ctx.signal),
    parse(text) {
      const line = parseBatchLine(text, 'embeddings');
      const fail = (message: string): never => {
        throw Object.assign(new UsageError(message), { lineId: line.idJson });
      };
      if (typeof line.input !== 'string')
        fail(`"input" must be a string (one text to embed), got ${line.input === null ? 'null' : typeof line.input}`);
      if ((line.input as string).trim() === '') fail('"input" is empty; the services reject empty texts');
      let merged = command.settings;
      if (line.parameters !== undefined) {
        let own: EmbedSettings;
        try {
          own = lineSettings(line.parameters);
        } catch (e) {
          return fail((e as Error).message);
        }
        for (const key of Object.keys(own) as EmbedSetting[]) {
          if (!known.has(key))
            fail(`"parameters" of the line: ${key} is not supported by ${profile.provider} for embed`);
        }
        merged = { ...command.settings, ...own };
        try {
          op.checkSettings?.(merged);
        } catch (e) {
          fail(`"parameters" of the line: ${(e as Error).message}`);
        }
      }
      return { payload: { request: { model, inputs: [line.input as string], settings: merged } }, idJson: line.idJson };
    },
    async run(line, signal) {
      const res = await sender.send(specOf(line), signal);
      const text = await res.text();
      const context = answerContext(callee.kind, res.status, text, profile.secrets);
      const json = answerJson(text, context);
      const answer = readAnswer(() => op.parseResponse(json, line.request.inputs, line.request), context);
      if (answer.embeddings.length !== 1)
        throw new UnexpectedAnswer(`the answer holds ${answer.embeddings.length} embeddings for 1 text`, context);
      return resultJson(combineAnswers(model, [answer]), query);
    },
    wireRequest: specOf,
    printRequest: (spec) => printDryRun(ctx, profile, spec),
  });
}
