/**
 * `--batch` reads the providers' batch line format too (`{"custom_id", "method", "url", "body"}`, what OpenAI's
 * Batch API and `vllm run-batch` read), so one file runs on this machine, on serve, or at the provider: the url
 * must fit the command (refused per line otherwise), the body maps to the command's request, custom_id becomes
 * the record's id. Through the built CLI on the built-in local profiles.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeHome, runBin } from '../helpers/run-cli.js';

const home = makeHome();
const dir = mkdtempSync(join(tmpdir(), 'textgen-provider-lines-'));
afterAll(() => {
  home.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const line = (id: string, url: string, body: Record<string, unknown>) =>
  JSON.stringify({ custom_id: id, method: 'POST', url, body });

function file(name: string, lines: string[]): string {
  writeFileSync(join(dir, name), `${lines.join('\n')}\n`);
  return name;
}

const cli = (args: string[]) => runBin(args, { env: home.env, cwd: dir });

function records(text: string): any[] {
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));
}

describe('--batch with lines in the providers’ format', () => {
  const mixed = file('mixed.jsonl', [
    line('a', '/v1/completions', { model: 'x', prompt: 'Hello', max_tokens: 4 }),
    line('b', '/v1/chat/completions', { model: 'x', messages: [{ role: 'user', content: 'hi' }] }),
    line('c', '/v1/completions', { model: 'x', prompt: 'Bye', logprobs: 2 }),
    '{"input": "textgen\'s own line", "id": "d"}',
  ]);

  it("complete: completions lines run, a chat line and an unmapped field are their lines' errors", async () => {
    const r = await cli(['--profile', 'local-openai', 'complete', '-m', 'gpt-3.5-turbo-instruct', '--batch', mixed]);
    expect(r.exitCode).toBe(4);
    const recs = records(r.stdout);
    expect(recs.map((x) => [x.line, x.id])).toEqual([
      [1, 'a'],
      [2, 'b'],
      [3, 'c'],
      [4, 'd'],
    ]);
    expect(recs[0].result.results[0].generated_token_count).toBe(4);
    expect(recs[1].error).toEqual({
      exit_code: 2,
      message:
        '"url" /v1/chat/completions is a chat completions request, which complete and deployment text-generate does not run (use chat)',
    });
    expect(recs[2].error.message).toBe('"body.logprobs" has no counterpart in textgen\'s generation parameters');
    expect(recs[3].result).toBeDefined();
  });

  it('--dry-run lists the same lines as failing before sending', async () => {
    const r = await cli([
      '--profile',
      'local',
      'deployment',
      'text-generate',
      '--id-or-name',
      'demo',
      '--batch',
      mixed,
      '--dry-run',
    ]);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(/2 lines would fail before sending \(lines 2, 3\)/);
  });

  it('chat: the body’s messages and parameters; embed: the body’s input; a watsonx route is read too', async () => {
    const chat = file('chat.jsonl', [
      line('c1', '/v1/chat/completions', { model: 'x', messages: [{ role: 'user', content: 'hi' }], max_tokens: 3 }),
      line('c2', '/ml/v1/text/chat', { model_id: 'x', project_id: 'p', messages: [{ role: 'user', content: 'yo' }] }),
      line('c3', '/v1/embeddings', { model: 'x', input: 'hi' }),
    ]);
    const r = await cli(['--profile', 'local-openai', 'chat', '-m', 'gpt-4o', '--batch', chat]);
    expect(r.exitCode).toBe(4);
    const recs = records(r.stdout);
    expect(recs[0].result.usage.completion_tokens).toBeLessThanOrEqual(3);
    expect(recs[1].result.choices[0].message.role).toBe('assistant');
    expect(recs[2].error.message).toMatch(/is an embeddings request, which chat does not run \(use embed\)/);
    const emb = file('emb.jsonl', [line('e1', '/v1/embeddings', { model: 'x', input: ['one text'] })]);
    const e = await cli(['--profile', 'local-openai', 'embed', '-m', 'text-embedding-3-small', '--batch', emb]);
    expect(e.exitCode).toBe(0);
    expect(records(e.stdout)[0]).toMatchObject({ line: 1, id: 'e1', result: { embeddings: [{ index: 0 }] } });
  });
});
