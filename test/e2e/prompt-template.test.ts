import { afterAll, describe, expect, it } from 'vitest';
import { startServer } from '../../src/emulator/core/index.js';
import { makeHome, runBin } from '../helpers/run-cli.js';

/**
 * A prompt-template deployment generates from its template and the prompt variables: IBM documents `input` as
 * ignored for such a deployment, so neither `serve` nor the CLI may demand it (issue 23, item 2).
 */
const home = makeHome();
afterAll(() => home.cleanup());
const VARS = '{"document":"Rivers run to the sea."}';

describe('prompt-template deployments without input', () => {
  it('serve answers a body without input for deployment summarize, and a 400 for demo (no template)', async () => {
    const server = await startServer();
    try {
      const post = (id: string) =>
        fetch(`${server.url}/ml/v1/deployments/${id}/text/generation?version=2024-05-01`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({ parameters: { max_new_tokens: 4, prompt_variables: { document: 'Rivers run.' } } }),
        });
      const ok = await post('summarize');
      expect(ok.status).toBe(200);
      const body = (await ok.json()) as { results: { generated_text: string; input_token_count: number }[] };
      // The template "Summarise: {document}" filled is what was generated from.
      expect(body.results[0]!.input_token_count).toBeGreaterThan(2);
      const refused = await post('demo');
      expect(refused.status).toBe(400);
      expect(await refused.text()).toContain("'input' cannot be missing or empty");
    } finally {
      await server.close();
    }
  });

  it('deployment text-generate with prompt variables runs without --input against a template deployment', async () => {
    const r = await runBin(
      [
        '--profile',
        'local',
        'deployment',
        'text-generate',
        '--id-or-name',
        'summarize',
        '--parameters-prompt-variables',
        VARS,
        '--parameters-max-new-tokens',
        '5',
        '-o',
        'json',
      ],
      { env: home.env },
    );
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).results[0].generated_token_count).toBeGreaterThan(0);
  });

  it('lets the service decide: a deployment without a template answers its 400 (exit 4)', async () => {
    const r = await runBin(
      [
        '--profile',
        'local',
        'deployment',
        'text-generate',
        '--id-or-name',
        'demo',
        '--parameters-prompt-variables',
        VARS,
      ],
      { env: home.env },
    );
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(/^error: .*'input' cannot be missing or empty/m);
  });

  it('still needs --input where the client fills the placeholders (no service-side templates)', async () => {
    const r = await runBin(
      [
        '--profile',
        'local-azure',
        'deployment',
        'text-generate',
        '--id-or-name',
        'gpt-35-turbo',
        '--parameters-prompt-variables',
        VARS,
      ],
      { env: home.env },
    );
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^error: missing required option: --input/);
  });

  it('without prompt variables a missing --input is still a usage error', async () => {
    const r = await runBin(['--profile', 'local', 'deployment', 'text-generate', '--id-or-name', 'summarize'], {
      env: home.env,
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^error: missing required option: --input/);
  });
});
