import type { GenerateOperation } from '../../../src/contract/adapter.js';
import { alephAlphaCapabilities } from '../capabilities.js';
import { buildAlephAlphaGenerateRequest } from './request.js';
import { parseAlephAlphaError, parseAlephAlphaGenerateResponse } from './response.js';
import { createAlephAlphaStreamDecoder } from './stream.js';
import { alephAlphaSettings } from '../settings.js';

/**
 * The Aleph Alpha `/complete` protocol: API 1.16, plus the streaming of 1.19+ when the user's profile says
 * `streaming: true`. No API version goes on the wire, so there is no default one.
 */
export const alephAlphaGenerate: GenerateOperation = {
  kind: 'aleph-alpha',
  displayName: 'Aleph Alpha',
  capabilities: alephAlphaCapabilities,
  profileStreams: (profile) => alephAlphaSettings(profile).streaming,
  build: buildAlephAlphaGenerateRequest,
  parse: parseAlephAlphaGenerateResponse,
  decoder: createAlephAlphaStreamDecoder,
  parseError: parseAlephAlphaError,
};
