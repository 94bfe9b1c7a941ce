/**
 * The cpdctl mirror commands `text generate|chat|calculate-embeddings|rerank|tokenize`: the body is the one the
 * user's flags wrote, in the service's own words, and the adapter only puts it on the wire — the URL, the API
 * version, and the profile's space or project (which the scope options may have replaced). Types only.
 */
import type { ResolvedProfile } from '../profile.js';
import type { HttpRequestSpec } from '../http.js';

/** The `/ml/v1/<route>` each mirror command calls. */
export type WxTextRoute =
  | 'text/generation'
  | 'text/generation_stream'
  | 'text/chat'
  | 'text/chat_stream'
  | 'text/embeddings'
  | 'text/rerank'
  | 'text/tokenization';

export interface WxTextOperation {
  /** `body` as the flags wrote it, with the profile's scope; `what` names the call in a missing-scope error. */
  request(route: WxTextRoute, body: Record<string, unknown>, profile: ResolvedProfile, what: string): HttpRequestSpec;
}
