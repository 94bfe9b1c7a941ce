/**
 * The authenticator of a call that is answered from a cassette (`--replay`): nothing is sent, so no credential is
 * needed and no token is exchanged (no IAM or CPD call; CI holds no keys). docs/cassettes.md.
 */
import type { Authenticator } from '../contract/adapter.js';

export const OFFLINE_AUTHENTICATOR: Authenticator = {
  headers: async () => ({}),
  invalidate: async () => false,
  dryRunHeaders: () => ({}),
};
