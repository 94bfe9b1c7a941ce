/** What every Aleph Alpha task request shares: the endpoint at the root, `?nice=true`, `hosting`, JSON both ways. */
import type { ResolvedProfile } from '../../../src/contract/profile.js';
import { UsageError } from '../../../src/contract/errors.js';
import type { HttpRequestSpec } from '../../../src/contract/http.js';
import { HOSTING } from './request.js';

/** The profile's defaults.hosting as the body field: "aleph-alpha", or nothing at all (the service's null). */
export function hostingField(profile: ResolvedProfile): { hosting?: typeof HOSTING } {
  const hosting = profile.defaults.hosting;
  if (hosting === undefined || hosting === '') return {};
  if (hosting !== HOSTING)
    throw new UsageError(
      `aleph-alpha accepts hosting "${HOSTING}" or none, got "${hosting}" (profile defaults.hosting)`,
    );
  return { hosting };
}

/** `POST <url>/<task>`, with `?nice=true` only when asked (the spec: send it only when true). */
export function taskRequest(
  profile: ResolvedProfile,
  task: string,
  body: Record<string, unknown>,
  nice: boolean,
): HttpRequestSpec {
  return {
    method: 'POST',
    url: `${profile.url}/${task}${nice ? '?nice=true' : ''}`,
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  };
}

/** The fields every task answer may carry beside its payload. */
export function modelVersionOf(body: Record<string, unknown>): { model_version?: string } {
  return typeof body.model_version === 'string' ? { model_version: body.model_version } : {};
}
