import { runInProcess, type CliResult } from './run-cli.js';
import { useServer, type ServerFixture } from './server-fixture.js';

export type Kind = 'watsonx' | 'azure-openai' | 'openai' | 'aleph-alpha' | 'open-inference';

/**
 * An embedded server that checks credentials, as real services do, and a runner that calls the CLI in-process as
 * `--provider K --url U` with that provider's credential: watsonx through the local IAM endpoint, Azure with an
 * api-key header, the others with a bearer token.
 */
export function useAuthedServer(key: string): {
  fixture: ServerFixture;
  run(kind: Kind, args: string[], opts?: { url?: string; env?: Record<string, string> }): Promise<CliResult>;
} {
  const fixture = useServer({ requireAuth: true, apiKeys: [key] });
  const credential = (kind: Kind) =>
    kind === 'watsonx' ? [] : kind === 'azure-openai' ? ['--api-key', key] : ['--token', key];
  return {
    fixture,
    run(kind, args, opts = {}) {
      const url = fixture.server.url;
      return runInProcess(['--provider', kind, '--url', opts.url ?? url, ...credential(kind), ...args], {
        env: {
          ...fixture.home.env,
          ...(kind === 'watsonx' ? { TEXTGEN_API_KEY: key, TEXTGEN_IAM_URL: `${url}/identity/token` } : {}),
          ...opts.env,
        },
      });
    },
  };
}
