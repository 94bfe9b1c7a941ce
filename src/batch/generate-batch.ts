/**
 * `deployment text-generate --batch`, `text-generate-stream --batch` and `complete --batch`: one generation per line
 * (docs/batch.md). Everything that comes from the command line — profile, target, flags, --extra — is resolved and
 * validated once; a line adds its input and, optionally, parameters that override the flags for that line. Lines
 * are never streamed on the wire token by token; only a client-side time limit streams, to keep the text generated in
 * time. Loaded only lazily (by the commands' run), so its imports may be eager.
 */
import type { CanonicalParameters, CanonicalRequest, GenerateResult } from '../contract/canonical.js';
import type { Context } from '../context.js';
import { readWhole, type WholeAnswer } from '../call/answer.js';
import { CallGuards } from '../call/guards.js';
import { isEventStream, readStream } from '../call/stream.js';
import { Interrupted, UsageError } from '../contract/errors.js';
import type { HttpRequestSpec, HttpResponse } from '../contract/http.js';
import { buildCanonicalRequest } from '../options/generate-request.js';
import { parseBooleanFlag } from '../options/flag-values.js';
import { deepMerge } from '../contract/deep-merge.js';
import { missingFlagsError } from '../options/input.js';
import { readStdinText } from '../options/input.js';
import { printDryRun } from '../call/send.js';
import { inCanonicalOrder, StreamAggregator } from '../generation/aggregate.js';
import type { GenerationCommand } from '../generation/generation-command.js';
import { checkSupport, fillPromptVariables, type CheckedRequest } from '../generation/support.js';
import type { GenerateTarget, GenerateOperation } from '../contract/adapter.js';
import { parseBatchLine } from './batch-line.js';
import { checkBatchFlags } from './common-checks.js';
import { compileResultQuery, resultJson } from './json-query.js';
import { runBatch } from './run-batch.js';
import { createLineSender } from '../call/line-sender.js';
import type { BatchSettings } from '../options/batch-settings.js';

interface GenerateLine {
  input: string;
  parameters?: Record<string, unknown>;
  /** Built on the first attempt, reused by retries. */
  call?: LineCall;
}

interface LineCall {
  request: CanonicalRequest;
  spec: HttpRequestSpec;
  /** A client-side time limit (docs/design.md §3 "client deadline"): the call streams and is cut after this many ms. */
  deadlineMs?: number;
  /** The profile's secrets, masked in the excerpt of an UnexpectedAnswer. */
  secrets: readonly string[];
}

const UNKNOWN_FIELD_HINT = 'provider-specific body fields go in --extra';

export async function runGenerationBatch(
  ctx: Context,
  cmd: GenerationCommand,
  settings: BatchSettings,
): Promise<number> {
  const inputFlags = [
    ...(cmd.promptWords?.length ? ['prompt words'] : []),
    ...(cmd.raw.input !== undefined ? ['--input'] : []),
    ...(cmd.raw.inputFile !== undefined ? ['--input-file'] : []),
  ];
  const refused = [
    ...(parseBooleanFlag('--show-logprobs', cmd.raw.showLogprobs) === true ? ['--show-logprobs'] : []),
    ...(cmd.multimodal && (cmd.multimodal.images.length > 0 || cmd.multimodal.promptJson !== undefined)
      ? ['--image/--prompt-json']
      : []),
  ];
  checkBatchFlags(ctx, settings, { inputFlags, raw: cmd.raw, refused });
  const raw = parseBooleanFlag('--raw', cmd.raw.raw) === true;
  const ignoreUnsupported = parseBooleanFlag('--ignore-unsupported', cmd.raw.ignoreUnsupported) === true;
  const query = await compileResultQuery(ctx.output().jmes);

  let stdinText: Promise<string> | undefined;
  const buildOpts = {
    cwd: ctx.cwd,
    stdin: () => (stdinText ??= readStdinText(ctx.stdin)),
    ...(cmd.flags ? { flags: cmd.flags } : {}),
    ...(cmd.parametersWithFlags ? { parametersWithFlags: cmd.parametersWithFlags } : {}),
  };
  // The input comes from the lines; an empty one here tells the builder that stdin is not the prompt.
  const rawForBuild = { ...cmd.raw, input: '' };
  let built = await buildCanonicalRequest(rawForBuild, buildOpts);
  if (cmd.target.kind === 'deployment' && cmd.target.idOrName === undefined) throw missingFlagsError(['--id-or-name']);

  const profile = await ctx.connect(await ctx.profile());
  if (profile.defaults.parameters)
    built = await buildCanonicalRequest(rawForBuild, { ...buildOpts, defaults: profile.defaults.parameters });
  const model = cmd.target.kind === 'model' ? (cmd.target.model ?? profile.defaults.model) : undefined;
  if (cmd.target.kind === 'model' && model === undefined) {
    throw new UsageError(`missing required option: --model (profile "${profile.name}" has no defaults.model)`);
  }
  const { adapterFor } = await import('../../profiles/registry.js');
  const provider = await adapterFor(profile.provider).generate();
  const modelVersion = cmd.raw.modelVersion;
  const target: GenerateTarget = {
    ...(cmd.target.kind === 'deployment' ? { deployment: cmd.target.idOrName as string } : { model: model as string }),
    ...(modelVersion ? { modelVersion } : {}),
    stream: false,
  };
  const warned = new Set<string>();
  const supportOpts = {
    ignoreUnsupported,
    warn: (m: string) => {
      // Once per message, not once per line.
      if (warned.has(m)) return;
      warned.add(m);
      ctx.reporter.warn(m);
    },
  };
  const base: CanonicalRequest = { ...built.request, ...(cmd.choices !== undefined ? { n: cmd.choices } : {}) };
  // The command line alone must make a valid request: a bad flag is a usage error before any line is read.
  const baseChecked = checkSupport(base, provider, profile, target, supportOpts);
  const canStream = provider.capabilities.streaming === 'native' || provider.profileStreams?.(profile) === true;
  const [{ parametersSchemaFor }, { validateOption, within }] = await Promise.all([
    import('../options/schemas.js'),
    import('../options/validate-option.js'),
  ]);

  const prepare = (line: GenerateLine): LineCall => {
    let checked: CheckedRequest = baseChecked;
    if (line.parameters !== undefined) {
      const own = validateOption(
        parametersSchemaFor(line.parameters),
        line.parameters,
        within('"parameters" of the line'),
        {
          unknownFieldHint: UNKNOWN_FIELD_HINT,
        },
      );
      const over = built.request.parameters ? deepMerge(built.request.parameters, own) : undefined;
      const merged: CanonicalParameters = over
        ? validateOption(parametersSchemaFor(over), over, within('"parameters" of the line over the flags'))
        : own;
      checked = checkSupport({ ...base, parameters: merged }, provider, profile, target, supportOpts);
    }
    const request: CanonicalRequest = { ...checked.request, input: line.input };
    if (checked.client.promptVariables) request.input = fillPromptVariables(line.input, checked.client.promptVariables);
    const deadlineMs = checked.client.timeLimitMs;
    const wireStream = canStream && deadlineMs !== undefined;
    const spec = provider.build(request, { ...target, stream: wireStream }, profile, built.extra);
    return { request, spec, secrets: profile.secrets, ...(deadlineMs !== undefined ? { deadlineMs } : {}) };
  };
  // The flags' own request goes through the provider once too (its limits are usage errors, before any line).
  prepare({ input: '' });

  const sender = await createLineSender(ctx, profile, provider);
  const toJson = (result: GenerateResult, rawBody: unknown): string =>
    resultJson(raw ? rawBody : inCanonicalOrder(result), query);

  return runBatch<GenerateLine>(ctx, settings, {
    retries: profile.retries,
    begin: () => sender.begin(ctx.signal),
    parse(text) {
      const line = parseBatchLine(text, 'completions');
      if (typeof line.input !== 'string') {
        throw Object.assign(
          new UsageError(`"input" must be a string, got ${line.input === null ? 'null' : typeof line.input}`),
          { lineId: line.idJson },
        );
      }
      const payload: GenerateLine = { input: line.input };
      if (line.parameters !== undefined) payload.parameters = line.parameters;
      return { payload, idJson: line.idJson };
    },
    async run(line, signal) {
      const call = (line.call ??= prepare(line));
      if (call.deadlineMs !== undefined)
        return generateWithDeadline(
          call,
          provider,
          target,
          signal,
          call.deadlineMs,
          profile.timeoutMs,
          toJson,
          (spec, s) => sender.send(spec, s),
        );
      const res = await sender.send(call.spec, signal);
      const { result, json } = await readWholeLine(res, provider, call, target);
      return toJson(result, json);
    },
    wireRequest: (line) => prepare(line).spec,
    printRequest: (spec) => printDryRun(ctx, profile, spec),
  });
}

function readWholeLine(
  res: HttpResponse,
  provider: GenerateOperation,
  call: LineCall,
  target: GenerateTarget,
): Promise<WholeAnswer<GenerateResult>> {
  return readWhole(res, { kind: provider.kind, secrets: call.secrets }, (json) =>
    provider.parse(json, call.request, target),
  );
}

const TIMED_OUT_EMPTY: GenerateResult = {
  results: [{ generated_text: '', generated_token_count: 0, input_token_count: 0, stop_reason: 'time_limit' }],
};

/** A line with a client-side time limit: streamed on the wire and cut at the deadline, keeping the text so far. */
async function generateWithDeadline(
  call: LineCall,
  provider: GenerateOperation,
  target: GenerateTarget,
  signal: AbortSignal,
  deadlineMs: number,
  silenceMs: number,
  toJson: (result: GenerateResult, rawBody: unknown) => string,
  send: (spec: HttpRequestSpec, signal: AbortSignal) => Promise<HttpResponse>,
): Promise<string> {
  const guards = new CallGuards({ user: [signal], limitMs: deadlineMs, silenceMs });
  const timedOut = (e: unknown) => e instanceof Interrupted && guards.timedOut();
  guards.start();
  try {
    let res: HttpResponse;
    try {
      res = await send(call.spec, guards.signal);
    } catch (e) {
      if (timedOut(e)) return toJson(TIMED_OUT_EMPTY, null);
      throw e;
    }
    if (!isEventStream(res)) {
      try {
        const { result, json } = await readWholeLine(res, provider, call, { ...target, stream: true });
        return toJson(result, json);
      } catch (e) {
        if (timedOut(e)) return toJson(TIMED_OUT_EMPTY, null);
        throw e;
      }
    }
    const aggregator = new StreamAggregator();
    const events: unknown[] = [];
    const end = await readStream({
      kind: provider.kind,
      res,
      decode: provider.decoder(call.request, { ...target, stream: true }),
      secrets: call.secrets,
      guards,
      stopReason: provider.capabilities.statesStopReason ? 'without-end-marker' : 'never',
      what: 'generation',
      onChunk(chunk, wireBody) {
        events.push(wireBody);
        aggregator.add(chunk);
      },
      unfinished: () => aggregator.unfinished(),
      // A line's record holds an error, not the text so far.
      stopped: () => undefined,
    });
    if (end === 'time_limit') aggregator.markStopped('time_limit');
    else aggregator.settle(call.request);
    return toJson(aggregator.result(), events);
  } finally {
    guards.dispose();
  }
}
