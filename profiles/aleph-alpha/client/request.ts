import type { CanonicalRequest } from '../../../src/contract/canonical.js';
import type { ResolvedProfile } from '../../../src/contract/profile.js';
import { UsageError } from '../../../src/contract/errors.js';
import type { HttpRequestSpec } from '../../../src/contract/http.js';
import type { GenerateTarget } from '../../../src/contract/adapter.js';
import { alephAlphaSettings } from '../settings.js';

/**
 * API 1.16 requires maximum_tokens; when the canonical request has no max_new_tokens this is sent (the default of
 * the official clients). Not reported as a warning: it is the documented default of this profile.
 */
export const DEFAULT_MAXIMUM_TOKENS = 64;
/** `best_of` maximum in the 1.16 OpenAPI document. */
export const MAX_BEST_OF = 100;
/** The only value the `Hosting` schema allows besides null. */
export const HOSTING = 'aleph-alpha';
/**
 * AA's own default temperature (0) is argmax. An explicit `decoding_method: sample` without a temperature gets
 * watsonx's sampling default instead, so asking to sample does sample.
 */
const SAMPLE_TEMPERATURE = 1;

/**
 * Canonical request → `POST /complete`. Streams only when the user's profile says the server can (`streaming: true`,
 * API 1.19+); otherwise the request is a plain one with `accept: application/json`, and the CLI, seeing a JSON
 * answer, shows the whole completion. `nice` is taken out of `extra` and sent as the `?nice=true` query parameter
 * (only when true), everything else in `extra` is merged into the body last.
 */
export function buildAlephAlphaGenerateRequest(
  request: CanonicalRequest,
  target: GenerateTarget,
  profile: ResolvedProfile,
  extra?: Record<string, unknown>,
): HttpRequestSpec {
  const model = target.model ?? target.deployment ?? profile.defaults.model;
  if (!model) {
    throw new UsageError(
      'aleph-alpha needs a model: give --model (or --id-or-name), or set defaults.model in the profile',
      {
        hint: 'e.g. luminous-base',
      },
    );
  }
  const { nice, rest } = splitExtra(extra);
  const stream = target.stream && alephAlphaSettings(profile).streaming;
  const p = request.parameters ?? {};

  const body: Record<string, unknown> = { model, prompt: request.input ?? '' };
  const hosting = profile.defaults.hosting;
  if (hosting !== undefined && hosting !== '') {
    if (hosting !== HOSTING)
      throw new UsageError(
        `aleph-alpha accepts hosting "${HOSTING}" or none, got "${hosting}" (profile defaults.hosting)`,
      );
    body.hosting = hosting;
  }
  body.maximum_tokens = p.max_new_tokens ?? DEFAULT_MAXIMUM_TOKENS;
  if (p.min_new_tokens !== undefined) body.minimum_tokens = p.min_new_tokens;
  if (p.decoding_method === 'greedy') {
    // Argmax needs every sampling knob at its default, so top_k and top_p are left out with it.
    body.temperature = 0;
  } else {
    const temperature = p.temperature ?? (p.decoding_method === 'sample' ? SAMPLE_TEMPERATURE : undefined);
    if (temperature !== undefined) body.temperature = temperature;
    if (p.top_k !== undefined) body.top_k = p.top_k;
    if (p.top_p !== undefined) body.top_p = p.top_p;
  }
  if (p.stop_sequences && p.stop_sequences.length > 0) body.stop_sequences = p.stop_sequences;

  const ro = p.return_options ?? {};
  if (ro.input_text) body.echo = true;
  const topN = ro.top_n_tokens ?? 0;
  if (topN > 0) body.log_probs = topN;
  else if (ro.token_logprobs) body.log_probs = 0;
  if (body.log_probs !== undefined || ro.generated_tokens) body.tokens = true;

  if (request.n !== undefined && request.n !== 1) body.n = request.n;
  if (stream) body.stream = true;
  Object.assign(body, rest);
  checkLimits(body, p.max_new_tokens === undefined);

  return {
    method: 'POST',
    url: `${profile.url}/complete${nice ? '?nice=true' : ''}`,
    headers: { 'content-type': 'application/json', accept: stream ? 'text/event-stream' : 'application/json' },
    body: JSON.stringify(body),
  };
}

function splitExtra(extra: Record<string, unknown> | undefined): { nice: boolean; rest: Record<string, unknown> } {
  const { nice, ...rest } = extra ?? {};
  if (nice !== undefined && typeof nice !== 'boolean') {
    throw new UsageError(
      `--extra nice must be true or false for aleph-alpha (it becomes the ?nice= query parameter), got ${JSON.stringify(nice)}`,
    );
  }
  if ('stream' in rest) {
    throw new UsageError(
      "--extra cannot set stream for aleph-alpha: streaming follows --stream and the profile's streaming setting",
      {
        hint: 'set streaming: true in the profile when the server runs API 1.19 or later',
      },
    );
  }
  return { nice: nice === true, rest };
}

/** Limits of the 1.16 service, checked after `extra` is merged so they hold for what is actually sent. */
function checkLimits(body: Record<string, unknown>, defaultedMaximum: boolean): void {
  const max = body.maximum_tokens;
  const min = body.minimum_tokens;
  if (typeof max === 'number' && typeof min === 'number' && min > max) {
    throw new UsageError(`aleph-alpha needs minimum_tokens (${min}) at most maximum_tokens (${max})`, {
      ...(defaultedMaximum
        ? {
            hint: `maximum_tokens defaults to ${DEFAULT_MAXIMUM_TOKENS}: give --parameters-max-new-tokens (or --max-tokens)`,
          }
        : {}),
    });
  }
  const n = typeof body.n === 'number' ? body.n : 1;
  const bestOf = body.best_of;
  if (bestOf === undefined || bestOf === null) return;
  if (typeof bestOf !== 'number' || !Number.isInteger(bestOf) || bestOf < 1 || bestOf > MAX_BEST_OF) {
    throw new UsageError(`aleph-alpha accepts best_of from 1 to ${MAX_BEST_OF}, got ${JSON.stringify(bestOf)}`);
  }
  if (bestOf <= n && !(bestOf === 1 && n === 1)) {
    throw new UsageError(`aleph-alpha needs best_of (${bestOf}) greater than n (${n})`);
  }
}
