/** Aleph Alpha health: `GET /version`, which answers the API version as plain text (`1.16.1`), and nothing else. */
import { UnexpectedAnswer } from '../../../src/contract/errors.js';
import type { HealthOperation } from '../../../src/contract/adapter.js';

/** The version in `/version`'s answer; a proxy's HTML page is no version. */
function versionOf(text: string): string | undefined {
  const v = text.trim();
  return v !== '' && v.length <= 64 && !/\s/.test(v) && !v.startsWith('<') ? v : undefined;
}

export const alephAlphaHealth: HealthOperation = {
  probes: (profile) => [
    {
      name: 'version',
      request: { method: 'GET', url: `${profile.url}/version`, headers: { accept: 'text/plain' } },
      required: true,
      version: versionOf,
      check: (text) => {
        if (versionOf(text) === undefined)
          throw new UnexpectedAnswer('the answer is not a version number (plain text such as 1.16.1)');
      },
    },
  ],
};
