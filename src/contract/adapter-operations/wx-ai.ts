/**
 * The cpdctl mirror commands (`text generate|chat|calculate-embeddings|rerank|tokenize`, docs/coming-from-cpd-cli.md):
 * the body is the one the user's flags wrote, in the service's own words, and the adapter only puts it on the
 * wire — the URL, the API version, and the profile's space or project when the flags named none. Types only.
 */
import type { ResolvedProfile } from '../profile.js';
import type { HttpRequestSpec } from '../http.js';

/** The `/ml/v1/<route>` each mirror command calls. */
export type WxAiRoute =
  | 'text/generation'
  | 'text/generation_stream'
  | 'text/chat'
  | 'text/chat_stream'
  | 'text/embeddings'
  | 'text/rerank'
  | 'text/tokenization';

export interface WxAiOperation {
  /** `body` as the flags wrote it; `what` names the call in a missing-scope error. */
  request(route: WxAiRoute, body: Record<string, unknown>, profile: ResolvedProfile, what: string): HttpRequestSpec;
  /**
   * The fields a generation or chat request carries for its space or project: the flags' when they named one (the
   * other one dropped), else the profile's.
   */
  scope(
    profile: ResolvedProfile,
    given: { space_id?: string; project_id?: string },
    what: string,
  ): Record<string, string>;
}
