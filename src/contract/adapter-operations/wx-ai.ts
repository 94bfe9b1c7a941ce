/**
 * The `wx-ai` mirror commands (cpd-cli's `deployment list|get`, `foundation-model …`, `time-series forecast`; `deployment
 * chat` goes through the adapter's chat operation) and
 * the scope options every one of them takes: what an adapter implements for them. The commands print the service's
 * own body, so the operation is only placement — which method, path, query and body each call is. Types only.
 */
import type { ResolvedProfile } from '../profile.js';
import type { HttpRequestSpec } from '../http.js';

/** The space and/or project a call runs in, as the wire names them. */
export interface WxScope {
  space_id?: string;
  project_id?: string;
}

/** A scope container looked up by name. */
export type WxScopeKind = 'spaces' | 'projects';

/** One call of a mirror command; `query` holds only the parameters the user gave, already in the wire's words. */
export type WxAiCall =
  | { kind: 'deployments.list'; scope: WxScope; query: Readonly<Record<string, string>> }
  | { kind: 'deployments.get'; scope: WxScope; id: string }
  | { kind: 'foundation-models.list'; query: Readonly<Record<string, string>> }
  | { kind: 'foundation-models.tasks'; query: Readonly<Record<string, string>> }
  | { kind: 'time-series.forecast'; scope: WxScope; body: Record<string, unknown> };

export interface WxAiOperations {
  /** The scope the profile itself gives (its space_id/project_id), as the calls would send it. */
  profileScope(profile: ResolvedProfile): WxScope;
  /** The profile with its scope replaced by what the scope options chose (ResolvedProfile.settings is the adapter's). */
  withScope(profile: ResolvedProfile, scope: WxScope): ResolvedProfile;
  /** `GET /v2/spaces?name=…` or `GET /v2/projects?name=…`. */
  lookupRequest(profile: ResolvedProfile, kind: WxScopeKind, name: string): HttpRequestSpec;
  /** The ids of the answer's resources whose name is exactly `name`. */
  parseLookup(body: unknown, name: string): string[];
  /** The request of one call. */
  request(profile: ResolvedProfile, call: WxAiCall): HttpRequestSpec;
  /** The request for a listing's `next.href`, keeping the query parameters every page needs. */
  nextRequest(href: string, previous: HttpRequestSpec): HttpRequestSpec;
}
