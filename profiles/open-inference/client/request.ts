import type { CanonicalParameters, CanonicalRequest } from '../../../src/contract/canonical.js';
import type { ResolvedProfile } from '../../../src/contract/profile.js';
import { UsageError } from '../../../src/contract/errors.js';
import type { HttpRequestSpec } from '../../../src/contract/http.js';
import { deepMerge } from '../../../src/contract/deep-merge.js';
import type { GenerateTarget } from '../../../src/contract/adapter.js';
import { pathSegment } from '../../common/path-segment.js';

/**
 * Canonical parameters that travel as extra keys of `parameters`, and their names on the wire. The request reaching
 * this module holds them only when the user's profile lists them in `server_parameters`. Names are the canonical
 * ones, except random_seed, which every serving stack calls `seed`.
 */
export const EXTRA_PARAMETER_KEYS = {
  min_new_tokens: 'min_new_tokens',
  top_k: 'top_k',
  random_seed: 'seed',
  repetition_penalty: 'repetition_penalty',
  typical_p: 'typical_p',
  truncate_input_tokens: 'truncate_input_tokens',
  length_penalty: 'length_penalty',
  include_stop_sequence: 'include_stop_sequence',
} as const satisfies Partial<Record<keyof CanonicalParameters, string>>;

/** The generate extension's `max_tokens` has a minimum of 1 (open-inference-generate.yaml). */
const MIN_MAX_TOKENS = 1;

export interface ModelAddress {
  model: string;
  version: string | undefined;
}

/**
 * Which model (and version) a request goes to: `--model`, else `--id-or-name`, else the profile's default model.
 * A version comes from `--model-version`, or from a `model:version` suffix when no version flag was given (with
 * the flag, the name is taken whole, so names that contain a colon still work).
 */
export function modelAddress(target: GenerateTarget, profile: ResolvedProfile): ModelAddress {
  const name = target.model ?? target.deployment ?? profile.defaults.model;
  if (name === undefined || name === '') {
    throw new UsageError(
      'open-inference needs a model name: give --id-or-name (or --model), or set defaults.model in the profile',
    );
  }
  if (target.modelVersion !== undefined && target.modelVersion !== '')
    return { model: name, version: target.modelVersion };
  const colon = name.lastIndexOf(':');
  if (colon > 0 && colon < name.length - 1) return { model: name.slice(0, colon), version: name.slice(colon + 1) };
  return { model: name, version: undefined };
}

export function generatePath(address: ModelAddress, stream: boolean): string {
  const version = address.version !== undefined ? `/versions/${pathSegment(address.version, 'model version')}` : '';
  return `/v2/models/${pathSegment(address.model, 'model')}${version}/${stream ? 'generate_stream' : 'generate'}`;
}

function wireParameters(request: CanonicalRequest): Record<string, unknown> {
  const p = request.parameters ?? {};
  const out: Record<string, unknown> = {};
  if (p.max_new_tokens !== undefined) {
    if (p.max_new_tokens < MIN_MAX_TOKENS) {
      throw new UsageError(
        `open-inference needs max_new_tokens of at least ${MIN_MAX_TOKENS} (its max_tokens minimum), got ${p.max_new_tokens}`,
      );
    }
    out.max_tokens = p.max_new_tokens;
  }
  if (p.stop_sequences !== undefined && p.stop_sequences.length > 0) out.stop = p.stop_sequences;
  if (p.temperature !== undefined) out.temperature = p.temperature;
  if (p.top_p !== undefined) out.top_p = p.top_p;
  // The protocol has no decoding method: temperature 0 is how its servers decode greedily.
  if (p.decoding_method === 'greedy') out.temperature = 0;
  for (const [canonical, wire] of Object.entries(EXTRA_PARAMETER_KEYS) as Array<
    [keyof typeof EXTRA_PARAMETER_KEYS, string]
  >) {
    if (p[canonical] !== undefined) out[wire] = p[canonical];
  }
  if (p.return_options?.token_ranks) out.token_ranks = true;
  if (request.moderations !== undefined) out.moderations = request.moderations;
  // Always: the finish reason arrives only inside `details`, and a canonical result always has a stop reason.
  // Token data asked for by return_options (generated_tokens, token_logprobs, top_n_tokens) comes with it.
  out.details = true;
  return out;
}

/** Canonical request → `POST /v2/models/{model}[/versions/{version}]/generate[_stream]`. */
export function buildOpenInferenceGenerateRequest(
  request: CanonicalRequest,
  target: GenerateTarget,
  profile: ResolvedProfile,
  extra?: Record<string, unknown>,
): HttpRequestSpec {
  const path = generatePath(modelAddress(target, profile), target.stream);
  let body: Record<string, unknown> = { text_input: request.input ?? '', parameters: wireParameters(request) };
  // Merged key by key, so `--extra '{"parameters":{"beam_width":2}}'` adds to the parameters instead of replacing them.
  if (extra) body = deepMerge(body, extra);
  return {
    method: 'POST',
    url: `${profile.url}${path}`,
    headers: { 'content-type': 'application/json', accept: target.stream ? 'text/event-stream' : 'application/json' },
    body: JSON.stringify(body),
  };
}
