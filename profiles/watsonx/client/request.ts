import type { CanonicalRequest } from '../../../src/contract/canonical.js';
import type { ResolvedProfile } from '../../../src/contract/profile.js';
import type { HttpRequestSpec } from '../../../src/contract/http.js';
import { UsageError } from '../../../src/contract/errors.js';
import type { GenerateTarget } from '../../../src/contract/adapter.js';
import { watsonxScope } from './scope.js';
import { pathSegment } from '../../common/path-segment.js';

export const WATSONX_DEFAULT_API_VERSION = '2024-05-01';

/** The service caps stop sequences at six (docs/protocols/watsonx.md). */
export const WATSONX_MAX_STOP_SEQUENCES = 6;

function endpoint(target: GenerateTarget): string {
  const suffix = target.stream ? 'generation_stream' : 'generation';
  if (target.deployment !== undefined) {
    return `/ml/v1/deployments/${pathSegment(target.deployment, 'deployment')}/text/${suffix}`;
  }
  return `/ml/v1/text/${suffix}`;
}

/** Canonical request → watsonx wire request. The canonical shape *is* watsonx's, so this is mostly placement. */
export function buildWatsonxGenerateRequest(
  request: CanonicalRequest,
  target: GenerateTarget,
  profile: ResolvedProfile,
  extra?: Record<string, unknown>,
): HttpRequestSpec {
  const stops = request.parameters?.stop_sequences;
  if (stops && stops.length > WATSONX_MAX_STOP_SEQUENCES) {
    throw new UsageError(`watsonx accepts at most ${WATSONX_MAX_STOP_SEQUENCES} stop sequences, got ${stops.length}`);
  }
  const body: Record<string, unknown> = {};
  if (request.input !== undefined) body.input = request.input;
  if (target.deployment === undefined) {
    const model = target.model ?? profile.defaults.model;
    if (!model)
      throw new UsageError(
        'a model is required for foundation-model generation: give --model or set defaults.model in the profile',
      );
    body.model_id = model;
    Object.assign(body, watsonxScope(profile, 'foundation-model generation'));
  }
  if (request.parameters && Object.keys(request.parameters).length > 0) body.parameters = request.parameters;
  if (request.moderations !== undefined) body.moderations = request.moderations;
  if (extra) Object.assign(body, extra);

  const version = profile.apiVersion ?? WATSONX_DEFAULT_API_VERSION;
  const url = `${profile.url}${endpoint(target)}?version=${encodeURIComponent(version)}`;
  return {
    method: 'POST',
    url,
    headers: {
      'content-type': 'application/json',
      accept: target.stream ? 'text/event-stream' : 'application/json',
    },
    body: JSON.stringify(body),
  };
}
