/**
 * Azure's `api-version`, reviewed against what the SDK sends (docs/sdk-fidelity-openai.md): textgen keeps the seed's
 * `2022-03-01-preview` for completions and embeddings unless the profile, TEXTGEN_API_VERSION or `--api-version` says
 * otherwise (in that order of strength), and lists deployments with a data-plane version that still has the listing.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeHome, runInProcess } from '../helpers/run-cli.js';

const home = makeHome();
afterAll(() => home.cleanup());
writeFileSync(
  join(home.dir, '.textgenrc.yaml'),
  'profiles:\n  az:\n    provider: azure-openai\n    url: https://res.openai.azure.com\n    api_version: "2024-06-01"\n    auth: { type: api-key, key_env: AZ_KEY }\n',
);

const COMMANDS = [
  [
    'completions',
    ['deployment', 'text-generate', '--id-or-name', 'd', '--input', 'Hi'],
    '/openai/deployments/d/completions',
  ],
  ['embeddings', ['embed', '-m', 'd', 'Hi'], '/openai/deployments/d/embeddings'],
] as const;

async function versionOf(args: string[], env: Record<string, string> = {}): Promise<string> {
  const r = await runInProcess(['--dry-run', ...args], { env: { ...home.env, AZ_KEY: 'k', ...env }, cwd: home.dir });
  expect(r.exitCode, r.stderr).toBe(0);
  return /api-version=([^'&\s]+)/.exec(r.stdout)?.[1] ?? '(none)';
}

describe.each(COMMANDS)('%s', (_, command, path) => {
  it("the seed's version by default", async () => {
    const r = await runInProcess(
      [
        '--dry-run',
        '--provider',
        'azure-openai',
        '--url',
        'https://res.openai.azure.com',
        '--api-key',
        'k',
        ...command,
      ],
      { env: home.env },
    );
    expect(r.stdout).toContain(`${path}?api-version=2022-03-01-preview`);
  });

  it("the profile's version, then TEXTGEN_API_VERSION, then --api-version", async () => {
    expect(await versionOf(['--profile', 'az', ...command])).toBe('2024-06-01');
    expect(await versionOf(['--profile', 'az', ...command], { TEXTGEN_API_VERSION: '2024-10-21' })).toBe('2024-10-21');
    expect(
      await versionOf(['--profile', 'az', '--api-version', '2023-05-15', ...command], {
        TEXTGEN_API_VERSION: '2024-10-21',
      }),
    ).toBe('2023-05-15');
  });
});
