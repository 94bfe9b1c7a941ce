import type { CanonicalRequest, ReturnOptions } from '../../../src/contract/canonical.js';
import type { ResolvedProfile } from '../../../src/contract/profile.js';
import { UsageError } from '../../../src/contract/errors.js';
import type { HttpRequestSpec } from '../../../src/contract/http.js';
import type { GenerateTarget } from '../../../src/contract/adapter.js';
import { AZURE_MAX_STOP_SEQUENCES } from '../capabilities.js';
import { pathSegment } from '../../common/path-segment.js';
import { azureUsesV1, azureV1Url } from './azure-v1.js';

/** The seed's version (docs/protocols/azure-openai.md); later GA versions keep the same paths and fields. */
export const AZURE_DEFAULT_API_VERSION = '2022-03-01-preview';

export type CompletionsKind = 'azure-openai' | 'openai';

/**
 * The `logprobs` count for canonical return options. top_n_tokens asks for that many alternatives; token data
 * without alternatives asks for 0, which still returns every chosen token with its text and logprob — exactly what
 * generated_tokens and token_logprobs need. Nothing asked: no field, so the service skips the work.
 */
export function logprobsFor(options: ReturnOptions | undefined): number | undefined {
  if (!options) return undefined;
  const top = options.top_n_tokens ?? 0;
  if (top > 0) return top;
  if (options.generated_tokens || options.token_logprobs) return 0;
  return undefined;
}

/** The completions body both kinds share (docs/design.md §3, azure-openai column). */
function completionBody(request: CanonicalRequest, stream: boolean): Record<string, unknown> {
  const p = request.parameters ?? {};
  const body: Record<string, unknown> = { prompt: request.input ?? '' };
  if (p.max_new_tokens !== undefined) body.max_tokens = p.max_new_tokens;
  if (p.decoding_method === 'greedy') {
    // Greedy is argmax sampling; a nucleus cut-off means nothing then, so it is not sent.
    body.temperature = 0;
  } else {
    if (p.temperature !== undefined) body.temperature = p.temperature;
    if (p.top_p !== undefined) body.top_p = p.top_p;
  }
  if (request.n !== undefined) body.n = request.n;
  if (p.random_seed !== undefined) body.seed = p.random_seed;
  if (stream) body.stream = true;
  const logprobs = logprobsFor(p.return_options);
  if (logprobs !== undefined) body.logprobs = logprobs;
  if (p.return_options?.input_text) body.echo = true;
  if (p.stop_sequences && p.stop_sequences.length > 0) body.stop = [...p.stop_sequences];
  return body;
}

/** Limits the service would reject with a 400; checked on the final body, so `--extra` values count too. */
function checkLimits(kind: CompletionsKind, body: Record<string, unknown>): void {
  if (Array.isArray(body.stop) && body.stop.length > AZURE_MAX_STOP_SEQUENCES) {
    throw new UsageError(`${kind} accepts at most ${AZURE_MAX_STOP_SEQUENCES} stop sequences, got ${body.stop.length}`);
  }
  const bestOf = body.best_of;
  if (typeof bestOf !== 'number' || bestOf <= 1) return;
  if (body.stream === true) {
    throw new UsageError(
      `${kind} cannot stream with best_of ${bestOf}: it picks the best completion only after generating all of them`,
      {
        hint: 'drop --stream, or best_of from --extra',
      },
    );
  }
  const n = typeof body.n === 'number' ? body.n : 1;
  if (bestOf < n) throw new UsageError(`${kind} needs best_of to be at least n: best_of is ${bestOf}, n is ${n}`);
}

function headers(stream: boolean): Record<string, string> {
  return { 'content-type': 'application/json', accept: stream ? 'text/event-stream' : 'application/json' };
}

/** `POST {url}/openai/deployments/{deployment}/completions?api-version=…`; the deployment picks the model. */
export function buildAzureCompletionsRequest(
  request: CanonicalRequest,
  target: GenerateTarget,
  profile: ResolvedProfile,
  extra?: Record<string, unknown>,
): HttpRequestSpec {
  const deployment = target.deployment ?? target.model ?? profile.defaults.model;
  if (!deployment) {
    throw new UsageError(
      `azure-openai needs a deployment: give --id-or-name (or --model), or set defaults.model in profile "${profile.name}"`,
    );
  }
  if (azureUsesV1(profile)) {
    const body = { model: deployment, ...completionBody(request, target.stream), ...extra };
    checkLimits('azure-openai', body);
    return {
      method: 'POST',
      url: azureV1Url(profile, '/completions'),
      headers: headers(target.stream),
      body: JSON.stringify(body),
    };
  }
  const body = { ...completionBody(request, target.stream), ...extra };
  checkLimits('azure-openai', body);
  // Users paste the endpoint with or without Azure's `/openai` segment; either way it appears once.
  const base = profile.url.replace(/\/+$/, '').replace(/\/openai$/, '');
  const version = profile.apiVersion ?? AZURE_DEFAULT_API_VERSION;
  return {
    method: 'POST',
    url: `${base}/openai/deployments/${pathSegment(deployment, 'deployment')}/completions?api-version=${encodeURIComponent(version)}`,
    headers: headers(target.stream),
    body: JSON.stringify(body),
  };
}

/** `POST {url}/v1/completions` with the model in the body: OpenAI-compatible servers route by it. */
export function buildOpenAiCompletionsRequest(
  request: CanonicalRequest,
  target: GenerateTarget,
  profile: ResolvedProfile,
  extra?: Record<string, unknown>,
): HttpRequestSpec {
  const model = target.model ?? target.deployment ?? profile.defaults.model;
  if (!model) {
    throw new UsageError(
      `openai needs a model: give --model (or --id-or-name), or set defaults.model in profile "${profile.name}"`,
    );
  }
  const body = { model, ...completionBody(request, target.stream), ...extra };
  checkLimits('openai', body);
  // Servers document their base URL both as `http://host:port` and as `http://host:port/v1`.
  const base = profile.url.replace(/\/+$/, '');
  const url = /\/v1$/.test(base) ? `${base}/completions` : `${base}/v1/completions`;
  return { method: 'POST', url, headers: headers(target.stream), body: JSON.stringify(body) };
}
