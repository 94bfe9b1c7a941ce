/**
 * What an authenticator may keep between runs (an exchanged token and its lifetime) and the key it is kept under;
 * the store itself (files under the user's cache directory) is src/config/token-cache.ts.
 */
import { createHash } from 'node:crypto';

export interface CachedToken {
  token: string;
  /** Epoch ms. */
  expiresAt: number;
  /** Epoch ms when the token was obtained; lets the refresh margin scale with the token's lifetime. */
  obtainedAt?: number;
}

export interface TokenCache {
  get(key: string): Promise<CachedToken | undefined>;
  set(key: string, token: CachedToken): Promise<void>;
  delete(key: string): Promise<void>;
}

/** sha256 of the credential parts, hex. JSON framing keeps ["ab","c"] and ["a","bc"] apart. */
export function tokenCacheKey(parts: string[]): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}
