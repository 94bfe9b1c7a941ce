import { afterAll, describe, expect, it } from 'vitest';
import { makeHome, runBin } from '../helpers/run-cli.js';

/** Through the built binary (npm run build first), against the built-in local profiles' embedded server. */
const home = makeHome();
afterAll(() => home.cleanup());
const run = (args: string[], input?: string) =>
  runBin(args, { env: home.env, ...(input !== undefined ? { input } : {}) });

describe('tokenize and detokenize through the binary', () => {
  it('counts offline with a public encoding, no profile needed', async () => {
    const r = await run(['tokenize', '--encoding', 'cl100k_base', '--ids', 'hello world']);
    expect(r).toStrictEqual({ exitCode: 0, stdout: '15339 1917\n', stderr: '' });
  });

  it('Aleph Alpha: --local (the fetched tokenizer) agrees with the service, also when cached', async () => {
    const args = [
      '--profile',
      'local-aa',
      'tokenize',
      '--tokens',
      '--ids',
      '-o',
      'json',
      'An apple a day keeps the doctor away.',
    ];
    const online = await run(args);
    expect(online.stderr).toBe('');
    expect(online.exitCode).toBe(0);
    const body = JSON.parse(online.stdout);
    expect(body.model).toBe('luminous-base');
    expect(body.token_count).toBe(body.ids.length);
    const fetched = await run([...args, '--local']);
    const cached = await run([...args, '--local', '-v']);
    expect(fetched.stdout).toBe(online.stdout);
    expect(cached.stdout).toBe(online.stdout);
    expect(cached.stderr).toMatch(/tokenizer of luminous-base from the cache/);
  });

  it('watsonx: the local service counts and lists tokens', async () => {
    const r = await run(['--profile', 'local', 'tokenize', '--tokens', '-o', 'json', 'Hello world']);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toStrictEqual({
      model: 'ibm/granite-4-h-small',
      token_count: 2,
      tokens: ['Hello', ' world'],
    });
  });

  it('Azure: tokenize --ids piped into detokenize gives the text back', async () => {
    const text = 'Round trip: “quotes”, 🌍 and\nnew lines.';
    const ids = await run(['--profile', 'local-azure', 'tokenize', '--ids'], text);
    expect(ids.exitCode).toBe(0);
    const back = await run(['--profile', 'local-azure', 'detokenize', '-o', 'json', '-j', 'text'], ids.stdout);
    expect(JSON.parse(back.stdout)).toBe(text);
  });

  it('watsonx detokenize without an encoding: exit 2 naming the provider', async () => {
    const r = await run(['--profile', 'local', 'detokenize', '1', '2']);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: detokenize: watsonx has no detokenize endpoint/);
  });

  it('--dry-run prints the curl line of the watsonx tokenization', async () => {
    const r = await run(['--profile', 'local', '--dry-run', 'tokenize', 'Hi']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^curl .*'http:\/\/127\.0\.0\.1:8080\/ml\/v1\/text\/tokenization\?version=2024-05-01'/);
  });
});
