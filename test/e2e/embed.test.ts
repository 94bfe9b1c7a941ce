import { afterAll, describe, expect, it } from 'vitest';
import { makeHome, runBin } from '../helpers/run-cli.js';

/** Through the built binary, against the built-in local profiles (each starts the embedded server in-process). */
const home = makeHome();
afterAll(() => home.cleanup());
const run = (args: string[], input?: string) =>
  runBin(args, { env: home.env, ...(input !== undefined ? { input } : {}) });

describe('textgen embed', () => {
  it('prints one JSON array per text on the local watsonx profile', async () => {
    const r = await run([
      '--profile',
      'local',
      'embed',
      '-m',
      'ibm/slate-30m-english-rtrvr',
      'What',
      'is',
      'a',
      'river?',
    ]);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toHaveLength(384);
  });

  it('embeds piped lines in order, the same vectors every time (Azure)', async () => {
    const args = ['--profile', 'local-azure', 'embed', '-m', 'text-embedding-ada-002'];
    const many = await run(args, 'first\nsecond\n\nthird\n');
    expect(many.exitCode).toBe(0);
    const lines = many.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    const second = await run([...args, 'second']);
    expect(second.stdout).toBe(`${lines[1]}\n`);
  });

  it('gives the canonical JSON for Aleph Alpha semantic embeddings', async () => {
    const r = await run([
      '--profile',
      'local-aa',
      '-o',
      'json',
      'embed',
      '--representation',
      'query',
      '--compress-to-size',
      '128',
      'Where do rivers start?',
    ]);
    expect(r.exitCode).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(Object.keys(result)).toEqual(['model', 'dimensions', 'embeddings', 'input_token_count']);
    expect(result.model).toBe('luminous-base');
    expect(result.dimensions).toBe(128);
    expect(result.embeddings[0].embedding).toHaveLength(128);
  });

  it('names the provider that has no embeddings, exit 2, nothing on stdout', async () => {
    const r = await run(['--profile', 'local-oip', 'embed', 'Hi']);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^error: embed is not supported by open-inference; it works with watsonx, azure-openai, openai, aleph-alpha$/m,
    );
  });

  it('--dry-run prints the curl line for `textgen serve`', async () => {
    const r = await run(['--profile', 'local', 'embed', '-m', 'slate', 'Hi', '--dry-run']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(
      `curl -sS -N -X POST 'http://127.0.0.1:8080/ml/v1/text/embeddings?version=2024-05-01' -H 'content-type: application/json' -H 'accept: application/json' --data-raw '{"inputs":["Hi"],"model_id":"slate","space_id":"local-space"}'\n`,
    );
  });

  it('--help lists its flags', async () => {
    const r = await run(['embed', '--help']);
    expect(r.exitCode).toBe(0);
    for (const flag of [
      '--input-file',
      '--truncate-input-tokens',
      '--layers',
      '--pooling',
      '--representation',
      '--compress-to-size',
    ])
      expect(r.stdout).toContain(flag);
  });
});
