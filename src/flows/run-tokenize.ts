/**
 * The flow behind `tokenize` and `detokenize`: choose where the tokens come from — the service's endpoint, a public
 * OpenAI encoding offline, or (Aleph Alpha with --local) the model's own tokenizer.json, fetched once and cached —
 * then run it and print the result. Loaded only by those two commands.
 */
import type { ResolvedProfile } from '../contract/profile.js';
import type { Context } from '../context.js';
import { UsageError } from '../contract/errors.js';
import { readAnswer } from '../call/answer.js';
import type { HttpRequestSpec } from '../contract/http.js';
import { requestJson, printDryRun, type Callee } from '../call/send.js';
import {
  encodingForModel,
  OPENAI_ENCODINGS,
  parseEncodingFlag,
  resolveOpenAiEncoding,
  type OpenAiEncoding,
} from '../tokenizers/openai-encodings.js';
import type { OfflineTokenizer } from '../tokenizers/types.js';
import { renderTokenBoundaries, tokensAsText } from '../output/token-boundaries.js';
import { stdoutColor } from '../output/stdout-color.js';
import { renderDetokenizeText, renderTokenizeText, type TokenizeShow } from './tokenize-text.js';
import { adapterFor } from '../../profiles/registry.js';
import { visibleControls } from '../output/visible.js';
import { calleeFor } from '../call/callee.js';
import type { DetokenizeResult, TokenizeOperation, TokenizeResult } from '../contract/adapter.js';

export interface TokenizerChoice {
  /** -m/--model; the profile's defaults.model stands in when absent. */
  model?: string | undefined;
  /** --encoding: a public encoding, offline, whatever the provider. */
  encoding?: string | undefined;
  /** --local: offline even when the service has an endpoint. */
  local: boolean;
}

export interface TokenizeCommand extends TokenizerChoice {
  text: string;
  show: TokenizeShow;
  /** --count: the result is just the number. */
  count: boolean;
}

export interface DetokenizeCommand extends TokenizerChoice {
  ids: number[];
}

type Source =
  | { kind: 'service'; op: TokenizeOperation; model: string; profile: ResolvedProfile }
  | { kind: 'encoding'; encoding: OpenAiEncoding; model: string | undefined }
  /** Aleph Alpha --local: the model's tokenizer.json, from the cache or from `fileRequest`. */
  | { kind: 'tokenizer-file'; fileRequest: HttpRequestSpec; model: string; profile: ResolvedProfile };

function requireModel(model: string | undefined, profile: ResolvedProfile): string {
  if (model !== undefined) return model;
  throw new UsageError(`missing required option: --model (profile "${profile.name}" has no defaults.model)`);
}

/**
 * Where the tokens come from. `--encoding` needs no profile at all (no config, no embedded server); everything else
 * depends on the provider: its endpoint, its tokenizer file with --local, or the public encoding of the model.
 */
async function chooseSource(
  ctx: Context,
  command: 'tokenize' | 'detokenize',
  choice: TokenizerChoice,
): Promise<Source> {
  // An encoding named outright is the user's choice of tokenizer; the model only labels the result.
  if (choice.encoding !== undefined)
    return { kind: 'encoding', encoding: parseEncodingFlag(choice.encoding), model: choice.model };
  const profile = await ctx.connect(await ctx.profile());
  const model = choice.model ?? profile.defaults.model;
  const op = await adapterFor(profile.provider).tokenize?.();
  if (op?.tokenizerFileRequest && choice.local) {
    const fileModel = requireModel(model, profile);
    return {
      kind: 'tokenizer-file',
      fileRequest: op.tokenizerFileRequest(fileModel, profile),
      model: fileModel,
      profile,
    };
  }
  const serviceCan = op !== undefined && (command === 'tokenize' || op.detokenize !== undefined);
  if (op && serviceCan && !choice.local) return { kind: 'service', op, model: requireModel(model, profile), profile };
  if (op && !serviceCan && !choice.local && (model === undefined || encodingForModel(model) === undefined)) {
    throw new UsageError(
      `${command}: ${profile.provider} has no ${command} endpoint${model !== undefined ? `, and no public encoding is known for model "${model}"` : ''}`,
      {
        hint: `decode offline with --encoding NAME (${OPENAI_ENCODINGS.join(', ')})`,
      },
    );
  }
  const encoding = resolveOpenAiEncoding({ model, provider: profile.provider, purpose: `to ${command} offline` });
  return { kind: 'encoding', encoding, model };
}

function calleeOf(profile: ResolvedProfile): Promise<Callee> {
  return calleeFor(profile.provider);
}

/** One request to the service → its parsed answer; a 2xx without the needed fields is the provider's error. */
async function ask<T>(
  ctx: Context,
  profile: ResolvedProfile,
  spec: HttpRequestSpec,
  parse: (body: unknown) => T,
): Promise<T> {
  const callee = await calleeOf(profile);
  const answer = await requestJson(ctx, profile, callee, spec);
  const json = answer.json;
  return readAnswer(() => parse(json), answer.context);
}

/** For local profiles the port changes every run, but the embedded server's tokenizer does not. */
function cacheIdentity(profile: ResolvedProfile): string {
  return profile.local ? `textgen-local:${profile.provider}` : profile.url;
}

/** The model's tokenizer.json from the cache, else from the service (then cached). Undefined after a dry run. */
async function tokenizerFromFile(
  ctx: Context,
  source: Extract<Source, { kind: 'tokenizer-file' }>,
): Promise<OfflineTokenizer | undefined> {
  const { profile } = source;
  const { createByteLevelBpe } = await import('../tokenizers/byte-level-bpe.js');
  const { forgetCachedTokenizer, readCachedTokenizer, tokenizerCacheFile, writeCachedTokenizer } = await import(
    './tokenizer-cache.js'
  );
  const file = tokenizerCacheFile(ctx.env, cacheIdentity(profile), source.model);
  const cached = await readCachedTokenizer(file);
  if (cached !== undefined) {
    try {
      const tokenizer = createByteLevelBpe(JSON.parse(cached));
      if (ctx.globals.dryRun) {
        ctx.reporter.info(`nothing to send: the tokenizer of ${source.model} is cached (${file})`);
        return undefined;
      }
      ctx.reporter.trace(`* tokenizer of ${source.model} from the cache: ${file}`);
      return tokenizer;
    } catch {
      ctx.reporter.trace(`* the cached tokenizer ${file} is unusable; removed, fetching it again`);
      await forgetCachedTokenizer(file).catch(() => {});
    }
  }
  if (ctx.globals.dryRun) {
    await printDryRun(ctx, profile, source.fileRequest);
    return undefined;
  }
  const callee = await calleeOf(profile);
  const answer = await requestJson(ctx, profile, callee, source.fileRequest);
  // Checked before it is cached: a file textgen cannot use (exit 4) must not fail every later run too.
  const tokenizer = createByteLevelBpe(answer.json);
  try {
    await writeCachedTokenizer(file, answer.text);
  } catch (e) {
    ctx.reporter.warn(`could not cache the tokenizer in ${file}: ${(e as Error).message}`);
  }
  return tokenizer;
}

/** The offline tokenizer of a source that is not the service; undefined after a dry run (nothing to do). */
async function offlineTokenizer(
  ctx: Context,
  source: Exclude<Source, { kind: 'service' }>,
  command: string,
): Promise<OfflineTokenizer | undefined> {
  if (source.kind === 'tokenizer-file') return tokenizerFromFile(ctx, source);
  if (ctx.globals.dryRun) {
    ctx.reporter.info(`nothing to send: ${command} runs offline with ${source.encoding}`);
    return undefined;
  }
  const { loadOpenAiTokenizer } = await import('../tokenizers/openai-tokenizer.js');
  return loadOpenAiTokenizer(source.encoding);
}

/** Keys in the documented order, absent ones left out. */
function labelled<T extends { model?: string; encoding?: string }>(
  source: Exclude<Source, { kind: 'service' }>,
  rest: Omit<T, 'model' | 'encoding'>,
): T {
  return {
    ...(source.model !== undefined ? { model: source.model } : {}),
    ...(source.kind === 'encoding' ? { encoding: source.encoding } : {}),
    ...rest,
  } as T;
}

/** stdout: the text rendering, or the value as JSON/YAML/JSONL (after -j). */
async function present(ctx: Context, value: unknown, text: () => string): Promise<void> {
  const { renderStructured } = await import('../output/format.js');
  const format = ctx.output().format;
  const jmes = ctx.output().jmes;
  if (format === 'text' && !jmes) {
    ctx.out.text(text());
    return;
  }
  let v = value;
  if (jmes) {
    const { applyJmesQuery } = await import('../output/jmes.js');
    v = await applyJmesQuery(value, jmes);
  }
  const rawOutput = ctx.output().rawOutput;
  const { writeStructured } = await import('../output/structured.js');
  writeStructured(
    ctx.out,
    await renderStructured(v, format === 'text' ? 'json' : format, { rawOutput }),
    format,
    rawOutput,
  );
}

export async function runTokenize(ctx: Context, cmd: TokenizeCommand): Promise<number> {
  const format = ctx.output().format; // a bad -o is reported before anything is sent
  // The count alone, for a person at a colour terminal, becomes a picture of the token boundaries: that needs tokens.
  const picture =
    format === 'text' && !ctx.output().jmes && !cmd.count && !cmd.show.tokens && !cmd.show.ids && stdoutColor(ctx);
  // -o json|jsonl|yaml and -j give the whole result, {model, encoding, token_count, tokens, ids}, as the help says.
  const structured = format !== 'text' || ctx.output().jmes !== undefined;
  const wantTokens = cmd.show.tokens || picture || (structured && !cmd.count);
  const source = await chooseSource(ctx, 'tokenize', cmd);
  let result: TokenizeResult;
  if (source.kind === 'service') {
    const { profile } = source;
    if (cmd.show.ids && !source.op.givesIds) {
      throw new UsageError(`${profile.provider}'s tokenization answers with token texts and a count, not ids`, {
        hint: 'give --encoding NAME for the ids of a public encoding, or leave out --ids',
      });
    }
    const ids = cmd.show.ids || (structured && !cmd.count && source.op.givesIds);
    const request = { model: source.model, text: cmd.text, tokens: wantTokens, ids };
    const spec = source.op.buildTokenizeRequest(request, profile);
    if (ctx.globals.dryRun) {
      await printDryRun(ctx, profile, spec);
      return 0;
    }
    result = await ask(ctx, profile, spec, (body) => source.op.parseTokenizeResponse(body, request));
  } else {
    const tokenizer = await offlineTokenizer(ctx, source, 'tokenize');
    if (!tokenizer) return 0;
    const ids = tokenizer.encode(cmd.text);
    result = labelled<TokenizeResult>(source, {
      token_count: ids.length,
      ...(wantTokens ? { tokens: tokenizer.tokenTexts(ids) } : {}),
      ...(cmd.show.ids || (structured && !cmd.count) ? { ids } : {}),
    });
  }
  if (cmd.count) await present(ctx, result.token_count, () => `${result.token_count}\n`);
  else if (picture && result.tokens !== undefined)
    // The tokens are the service's: escaped before textgen's own colour codes go around them.
    ctx.out.raw(
      renderTokenBoundaries(tokensAsText(result.tokens, cmd.text).map(visibleControls), result.token_count, true),
    );
  else await present(ctx, result, () => renderTokenizeText(result, cmd.show));
  return 0;
}

export async function runDetokenize(ctx: Context, cmd: DetokenizeCommand): Promise<number> {
  ctx.output().format;
  const source = await chooseSource(ctx, 'detokenize', cmd);
  let result: DetokenizeResult;
  if (source.kind === 'service') {
    const { profile } = source;
    const { detokenize } = source.op;
    if (!detokenize) throw new Error('chooseSource picked a service without a detokenize endpoint');
    const request = { model: source.model, ids: cmd.ids };
    const spec = detokenize.buildRequest(request, profile);
    if (ctx.globals.dryRun) {
      await printDryRun(ctx, profile, spec);
      return 0;
    }
    result = await ask(ctx, profile, spec, (body) => detokenize.parseResponse(body, request));
  } else {
    const tokenizer = await offlineTokenizer(ctx, source, 'detokenize');
    if (!tokenizer) return 0;
    result = labelled<DetokenizeResult>(source, { text: tokenizer.decode(cmd.ids) });
  }
  await present(ctx, result, () => renderDetokenizeText(result));
  return 0;
}
