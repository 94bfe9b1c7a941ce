/**
 * The friendly `rerank` through the built CLI, against serve's watsonx and OpenAI-compatible fronts: the request
 * each service takes (checked against test/contract by the fixture after every test), the canonical result sorted
 * by score, and exit 2 where the provider has no reranking.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runBin } from '../helpers/run-cli.js';
import { useServer } from '../helpers/server-fixture.js';
import { openAiRerankResponseSchema } from '../contract/rerank-schemas.js';

const fixture = useServer();
const { home } = fixture;
const MODEL = 'cross-encoder/ms-marco-minilm-l-12-v2';
const TEXTS = ['Rivers start in the mountains.', 'Bread is baked in ovens.', 'Where rivers start: springs and lakes.'];

beforeAll(() => {
  const url = fixture.server.url;
  mkdirSync(join(home.dir, 'config', 'textgen'), { recursive: true });
  writeFileSync(
    join(home.dir, 'config', 'textgen', 'config.yaml'),
    [
      'profiles:',
      `  wx: { provider: watsonx, url: "${url}", space_id: sp-1 }`,
      `  openai: { provider: openai, url: "${url}/v1" }`,
      `  aa: { provider: aleph-alpha, url: "${url}" }`,
      `  azure: { provider: azure-openai, url: "${url}" }`,
      '',
    ].join('\n'),
  );
});

const run = (args: string[], input?: string) =>
  runBin(args, { env: home.env, ...(input !== undefined ? { input } : {}) });
const inputs = TEXTS.flatMap((t) => ['--input', t]);

describe('textgen rerank', () => {
  it('watsonx: one /ml/v1/text/rerank request, the texts best first in a table', async () => {
    const r = await run(['--profile', 'wx', 'rerank', '-m', MODEL, 'Where', 'do', 'rivers', 'start?', ...inputs]);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^RANK\s+SCORE\s+INDEX\s+TEXT$/);
    expect(lines).toHaveLength(4);
    // The bread text shares no word with the query: last.
    expect(lines[3]).toMatch(/^3\s+\S+\s+1\s+Bread is baked in ovens\.$/);
    const sent = fixture.server.requests.filter((q) => q.path === '/ml/v1/text/rerank');
    expect(sent).toHaveLength(1);
    expect(sent[0]!.json).toEqual({
      model_id: MODEL,
      inputs: TEXTS.map((text) => ({ text })),
      query: 'Where do rivers start?',
      space_id: 'sp-1',
    });
  });

  it('watsonx -o json: the canonical shape, sorted by score, --top-n as return_options.top_n', async () => {
    const r = await run([
      '--profile',
      'wx',
      '-o',
      'json',
      'rerank',
      '-m',
      MODEL,
      'rivers start',
      ...inputs,
      '--top-n',
      '2',
    ]);
    expect(r.exitCode).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(Object.keys(result)).toEqual(['model', 'query', 'results', 'input_token_count']);
    expect(result.model).toBe(MODEL);
    expect(result.results).toHaveLength(2);
    expect(result.results.map((x: { rank: number }) => x.rank)).toEqual([1, 2]);
    expect(result.results[0].score).toBeGreaterThanOrEqual(result.results[1].score);
    for (const x of result.results) expect(x.text).toBe(TEXTS[x.index]);
    const sent = fixture.server.requests.find((q) => q.path === '/ml/v1/text/rerank');
    expect((sent!.json as { parameters?: unknown }).parameters).toEqual({ return_options: { top_n: 2 } });
  });

  it('OpenAI-compatible: /v1/rerank with {model, query, documents, top_n}; the same canonical shape', async () => {
    const r = await run([
      '--profile',
      'openai',
      '-o',
      'json',
      'rerank',
      '-m',
      'BAAI/bge-reranker-base',
      'capital of France',
      '--inputs',
      '["Berlin is in Germany.","Paris is the capital of France."]',
      '--top-n',
      '1',
    ]);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result.results).toEqual([
      { rank: 1, index: 1, score: expect.any(Number), text: 'Paris is the capital of France.' },
    ]);
    const sent = fixture.server.requests.filter((q) => q.path === '/v1/rerank');
    expect(sent[0]!.json).toEqual({
      model: 'BAAI/bge-reranker-base',
      query: 'capital of France',
      documents: ['Berlin is in Germany.', 'Paris is the capital of France.'],
      top_n: 1,
    });
  });

  it('serve /v1/rerank answers the vLLM shape', async () => {
    const res = await fetch(`${fixture.server.url}/v1/rerank`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', query: 'rivers', documents: ['bread', 'rivers flow'] }),
    });
    expect(res.status).toBe(200);
    const body = openAiRerankResponseSchema.parse(await res.json());
    expect(body.results.map((x) => x.index)).toEqual([1, 0]);
    expect(body.results[0]!.document).toEqual({ text: 'rivers flow' });
  });

  it('--inputs @file takes cpdctl\'s [{"text": …}] as well as strings', async () => {
    const file = join(home.dir, 'texts.json');
    writeFileSync(file, JSON.stringify(TEXTS.map((text) => ({ text }))));
    const r = await run([
      '--profile',
      'wx',
      '-j',
      'results[0].index',
      'rerank',
      '-m',
      MODEL,
      'rivers start',
      '--inputs',
      `@${file}`,
    ]);
    expect(r.exitCode).toBe(0);
    expect([0, 2]).toContain(Number(r.stdout.trim()));
  });

  it.each(['aa', 'azure'])('%s has no reranking: exit 2 with a hint, nothing sent', async (profile) => {
    const r = await run(['--profile', profile, 'rerank', '-m', 'x', 'query', '--input', 'a']);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^error: rerank is not supported by (aleph-alpha|azure-openai); it works with watsonx, openai\n/,
    );
    expect(r.stderr).toMatch(/hint: /);
    expect(fixture.server.requests.filter((q) => q.path.includes('rerank'))).toHaveLength(0);
  });

  it('usage errors: no query, no texts, both --input and --inputs, a bad --top-n', async () => {
    const none = await run(['--profile', 'wx', 'rerank', '-m', MODEL]);
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toMatch(/^error: missing required options: QUERY, --input \(or --inputs\)\n/);
    const both = await run(['--profile', 'wx', 'rerank', '-m', MODEL, 'q', '--input', 'a', '--inputs', '["b"]']);
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toMatch(/^error: --input and --inputs cannot be used together/);
    const top = await run(['--profile', 'wx', 'rerank', '-m', MODEL, 'q', '--input', 'a', '--top-n', '0']);
    expect(top.exitCode).toBe(2);
    expect(top.stderr).toMatch(/^error: --top-n must be a positive integer, got "0"/);
  });

  it("a model without the rerank function is the service's 400 (exit 4), in its words", async () => {
    const r = await run(['--profile', 'wx', 'rerank', '-m', 'ibm/granite-3-8b-instruct', 'q', '--input', 'a']);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toContain('model_no_support_for_function');
  });

  it("without -m: the catalog's rerank model when the profile's default cannot rerank, with a note", async () => {
    // The built-in local profile's default model generates text; the catalog says which models rerank.
    const r = await run(['--profile', 'local', 'rerank', 'Where do rivers start?', ...inputs]);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/^using rerank model \S+ \(the profile's \S+ does not rerank\); -m chooses another\n$/);
    const chosen = /^using rerank model (\S+)/.exec(r.stderr)![1]!;
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(4);
    const json = await run(['--profile', 'local', '-q', '-o', 'json', 'rerank', 'q', '--input', 'a']);
    expect(json.exitCode).toBe(0);
    expect(json.stderr).toBe('');
    expect(JSON.parse(json.stdout).model).toBe(chosen);
  });

  it('without -m: a default that reranks is kept, and a profile without defaults.model gets the catalog one', async () => {
    const url = fixture.server.url;
    const config = join(home.dir, 'config', 'textgen', 'config.yaml');
    writeFileSync(
      config,
      [
        'profiles:',
        `  wx: { provider: watsonx, url: "${url}", space_id: sp-1 }`,
        `  wxr: { provider: watsonx, url: "${url}", space_id: sp-1, defaults: { model: "${MODEL}" } }`,
        '',
      ].join('\n'),
    );
    const kept = await run(['--profile', 'wxr', 'rerank', 'q', ...inputs]);
    expect(kept.exitCode).toBe(0);
    expect(kept.stderr).toBe('');
    expect(fixture.server.requests.filter((q) => q.path === '/ml/v1/text/rerank').at(-1)!.json).toMatchObject({
      model_id: MODEL,
    });
    const none = await run(['--profile', 'wx', 'rerank', 'q', ...inputs]);
    expect(none.exitCode).toBe(0);
    expect(none.stderr).toMatch(
      /^using rerank model \S+ \(the profile has no defaults\.model\); -m chooses another\n$/,
    );
  });

  it('--dry-run prints the request and sends nothing', async () => {
    const r = await run(['--profile', 'wx', '--dry-run', 'rerank', '-m', MODEL, 'q', '--input', 'a']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('/ml/v1/text/rerank?version=');
    expect(fixture.server.requests).toHaveLength(0);
  });
});
