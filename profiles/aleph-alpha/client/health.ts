/** Aleph Alpha health: `GET /version`, which answers the API version as plain text (`1.16.1`), and nothing else. */
import type { HealthOperation } from '../../types.js';

export const alephAlphaHealth: HealthOperation = {
  probes: (profile) => [
    {
      name: 'version',
      request: { method: 'GET', url: `${profile.url}/version`, headers: { accept: 'text/plain' } },
      required: true,
      version: (text) => {
        const v = text.trim();
        // A proxy's HTML page is no version.
        return v !== '' && v.length <= 64 && !/\s/.test(v) ? v : undefined;
      },
    },
  ],
};
