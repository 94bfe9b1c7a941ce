/**
 * Open Inference health (docs/protocols/open-inference.md): `GET /v2/health/live` and `/v2/health/ready`, judged by status
 * code alone (200 yes; 400 or 503 no; the body may be empty), then the server metadata `GET /v2` for the version,
 * which only informs: servers that keep metadata behind other credentials are still healthy.
 */
import type { HealthOperation, HealthProbe } from '../../../src/contract/adapter.js';
import { fieldAt, textOf } from '../../../src/contract/wire-fields.js';
import { jsonText } from '../../common/json-text.js';

function metadataVersion(text: string): string | undefined {
  try {
    return textOf(fieldAt(JSON.parse(text) as unknown, 'version'));
  } catch {
    return undefined;
  }
}

/** Triton answers live/ready with an empty body, KServe with `{"live": true}`; a web page on the URL is neither. */
function emptyOrJson(text: string): void {
  if (text.trim() !== '') jsonText(text);
}

export const openInferenceHealth: HealthOperation = {
  probes: (profile): HealthProbe[] => [
    {
      name: 'live',
      request: { method: 'GET', url: `${profile.url}/v2/health/live`, headers: { accept: 'application/json' } },
      required: true,
      check: emptyOrJson,
    },
    {
      name: 'ready',
      request: { method: 'GET', url: `${profile.url}/v2/health/ready`, headers: { accept: 'application/json' } },
      required: true,
      check: emptyOrJson,
    },
    {
      name: 'metadata',
      request: { method: 'GET', url: `${profile.url}/v2`, headers: { accept: 'application/json' } },
      required: false,
      version: metadataVersion,
    },
  ],
};
