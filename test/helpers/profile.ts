import type { ResolvedProfile } from '../../src/contract/profile.js';

/** A resolved profile for pure mapping tests; override what the test is about. */
export function testProfile(overrides: Partial<ResolvedProfile> = {}): ResolvedProfile {
  return {
    name: 'test',
    provider: 'watsonx',
    url: 'https://example.test',
    auth: { type: 'none' },
    tls: { insecure: false },
    defaults: {},
    timeoutMs: 300_000,
    retries: 2,
    local: false,
    serverParameters: [],
    settings: {},
    secrets: [],
    source: 'test',
    ...overrides,
  };
}
