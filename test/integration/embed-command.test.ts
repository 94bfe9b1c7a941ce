import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadTokenizer } from '../../src/emulator/engine/tokenizer.js';
import { sendJson } from '../../src/emulator/core/respond.js';
import { startServer, type ProtocolModule, type RunningServer } from '../../src/emulator/core/index.js';
import { localTokenizer } from '../../profiles/aleph-alpha/server/tokenizer.js';
import { makeHome, runInProcess } from '../helpers/run-cli.js';
import { embedRequests, expectValidEmbedWire } from '../helpers/embed-wire.js';

/** One embedded server for the file; every request a test makes is checked against its provider's contract. */
let server: RunningServer;
const home = makeHome();
beforeAll(async () => {
  server = await startServer({ requestLog: { max: 1000 } });
});
afterAll(async () => {
  await server.close();
  home.cleanup();
});
afterEach(() => {
  expectValidEmbedWire(server.requests);
  server.requests.length = 0;
  server.faults.length = 0;
});

type Provider = 'watsonx' | 'azure-openai' | 'openai' | 'aleph-alpha' | 'open-inference';

/** The command line of an ad hoc profile for each provider, pointed at the embedded server. */
function target(provider: Provider): string[] {
  switch (provider) {
    case 'azure-openai':
      return ['--provider', provider, '--url', server.url, '--api-version', '2022-03-01-preview'];
    case 'openai':
      return ['--provider', provider, '--url', `${server.url}/v1`];
    default:
      return ['--provider', provider, '--url', server.url];
  }
}

const MODEL: Record<Provider, string> = {
  watsonx: 'ibm/slate-30m-english-rtrvr',
  'azure-openai': 'text-embedding-ada-002',
  openai: 'text-embedding-3-small',
  'aleph-alpha': 'luminous-base',
  'open-inference': 'demo',
};

function embed(provider: Provider, args: string[], input?: string) {
  return runInProcess([...target(provider), 'embed', '-m', MODEL[provider], ...args], {
    env: { ...home.env, TEXTGEN_SPACE_ID: 'space-1' },
    ...(input !== undefined ? { input } : {}),
  });
}

function file(name: string, content: string): string {
  const path = join(home.dir, name);
  writeFileSync(path, content);
  return path;
}

function texts(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `text number ${i} about rivers`);
}

function sent() {
  return embedRequests(server.requests);
}

describe('embed sends each provider its own wire request', () => {
  const inputs = file('two.txt', 'first text\nsecond text\n');
  it.each<[string, Provider, string[], string, Record<string, string>, unknown]>([
    [
      'watsonx',
      'watsonx',
      ['Hello', 'world'],
      '/ml/v1/text/embeddings',
      { version: '2024-05-01' },
      { inputs: ['Hello world'], model_id: 'ibm/slate-30m-english-rtrvr', space_id: 'space-1' },
    ],
    [
      'watsonx --truncate-input-tokens',
      'watsonx',
      ['Hello', '--truncate-input-tokens', '128'],
      '/ml/v1/text/embeddings',
      { version: '2024-05-01' },
      {
        inputs: ['Hello'],
        model_id: 'ibm/slate-30m-english-rtrvr',
        space_id: 'space-1',
        parameters: { truncate_input_tokens: 128 },
      },
    ],
    [
      'Azure: the deployment in the path',
      'azure-openai',
      ['Hello world'],
      '/openai/deployments/text-embedding-ada-002/embeddings',
      { 'api-version': '2022-03-01-preview' },
      { input: ['Hello world'] },
    ],
    [
      'OpenAI-compatible: the model in the body',
      'openai',
      ['Hello world'],
      '/v1/embeddings',
      {},
      { model: 'text-embedding-3-small', input: ['Hello world'] },
    ],
    [
      'Aleph Alpha /embed with its defaults',
      'aleph-alpha',
      ['Hello world'],
      '/embed',
      {},
      { model: 'luminous-base', prompt: 'Hello world', layers: [-1], pooling: ['mean'] },
    ],
    [
      'Aleph Alpha /embed with layers, pooling, tokens, normalize',
      'aleph-alpha',
      ['Hello', '--layers', '0,-1', '--pooling', 'max', '--pooling', 'MEAN', '--tokens', '--normalize'],
      '/embed',
      {},
      {
        model: 'luminous-base',
        prompt: 'Hello',
        layers: [0, -1],
        pooling: ['max', 'mean'],
        tokens: true,
        normalize: true,
      },
    ],
    [
      'Aleph Alpha /semantic_embed for one text',
      'aleph-alpha',
      ['Hello', '--representation', 'query', '--compress-to-size', '128', '--normalize=true'],
      '/semantic_embed',
      {},
      { model: 'luminous-base', prompt: 'Hello', representation: 'query', compress_to_size: 128, normalize: true },
    ],
    [
      'Aleph Alpha /batch_semantic_embed for several',
      'aleph-alpha',
      ['--input-file', inputs, '--representation', 'document'],
      '/batch_semantic_embed',
      {},
      { model: 'luminous-base', prompts: ['first text', 'second text'], representation: 'document' },
    ],
    [
      'Aleph Alpha --nice',
      'aleph-alpha',
      ['Hello', '--nice'],
      '/embed',
      { nice: 'true' },
      { model: 'luminous-base', prompt: 'Hello', layers: [-1], pooling: ['mean'] },
    ],
  ])('%s', async (_name, provider, args, path, query, body) => {
    const r = await embed(provider, args);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const requests = sent();
    expect(requests).toHaveLength(1);
    expect(requests[0]!.path).toBe(path);
    expect(requests[0]!.query).toStrictEqual(query);
    expect(requests[0]!.json).toStrictEqual(body);
  });

  it('uses the project when the profile has one', async () => {
    const r = await runInProcess([...target('watsonx'), 'embed', '-m', 'ibm/slate-30m-english-rtrvr-v2', 'Hi'], {
      env: { ...home.env, TEXTGEN_PROJECT_ID: 'project-9' },
    });
    expect(r.exitCode).toBe(0);
    expect(sent()[0]!.json).toStrictEqual({
      inputs: ['Hi'],
      model_id: 'ibm/slate-30m-english-rtrvr-v2',
      project_id: 'project-9',
    });
  });
});

describe('embed splits many texts into the requests the service takes, and keeps their order', () => {
  it('2500 texts to watsonx: three requests of 1000, 1000 and 500; one result in input order; token counts summed', async () => {
    const all = texts(2500);
    const r = await embed('watsonx', ['--input-file', file('wx.json', JSON.stringify(all)), '-o', 'json']);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const requests = sent();
    expect(requests.map((q) => (q.json as { inputs: string[] }).inputs.length)).toEqual([1000, 1000, 500]);
    expect(requests.flatMap((q) => (q.json as { inputs: string[] }).inputs)).toEqual(all);

    const result = JSON.parse(r.stdout);
    expect(result.embeddings.map((e: { index: number }) => e.index)).toEqual(all.map((_, i) => i));
    const tokenizer = await loadTokenizer();
    expect(result.input_token_count).toBe(all.reduce((sum, t) => sum + tokenizer.encode(t).length, 0));
    // Each vector is the one that text gets on its own: nothing was shuffled between batches.
    for (const i of [0, 999, 1000, 1999, 2000, 2499]) {
      server.requests.length = 0;
      const single = JSON.parse((await embed('watsonx', [all[i]!, '-o', 'json'])).stdout);
      expect(result.embeddings[i].embedding, `text ${i}`).toEqual(single.embeddings[0].embedding);
    }
  });

  it('250 texts to Aleph Alpha batch_semantic_embed: three requests of 100, 100 and 50; token counts summed', async () => {
    const all = texts(250);
    const r = await embed('aleph-alpha', [
      '--input-file',
      file('aa.txt', all.join('\n')),
      '--representation',
      'symmetric',
      '-o',
      'json',
    ]);
    expect(r.exitCode).toBe(0);
    const requests = sent();
    expect(requests.map((q) => q.path)).toEqual([
      '/batch_semantic_embed',
      '/batch_semantic_embed',
      '/batch_semantic_embed',
    ]);
    expect(requests.map((q) => (q.json as { prompts: string[] }).prompts.length)).toEqual([100, 100, 50]);
    expect(requests.flatMap((q) => (q.json as { prompts: string[] }).prompts)).toEqual(all);
    const result = JSON.parse(r.stdout);
    expect(result.embeddings).toHaveLength(250);
    expect(result.input_token_count).toBe(all.reduce((sum, t) => sum + localTokenizer().encode(t).length, 0));
    for (const i of [0, 100, 249]) {
      server.requests.length = 0;
      const single = JSON.parse(
        (await embed('aleph-alpha', [all[i]!, '--representation', 'symmetric', '-o', 'json'])).stdout,
      );
      expect(result.embeddings[i].embedding, `text ${i}`).toEqual(single.embeddings[0].embedding);
    }
  });

  it('Aleph Alpha /embed: one request per text, a few at a time, results in input order', async () => {
    const all = texts(9);
    const r = await embed('aleph-alpha', ['--input-file', file('aa9.json', JSON.stringify(all)), '-o', 'json']);
    expect(r.exitCode).toBe(0);
    const requests = sent();
    expect(requests).toHaveLength(9);
    expect(requests.map((q) => (q.json as { prompt: string }).prompt).sort()).toEqual([...all].sort());
    const result = JSON.parse(r.stdout);
    const singles = [];
    for (const t of all)
      singles.push(JSON.parse((await embed('aleph-alpha', [t, '-o', 'json'])).stdout).embeddings[0].embedding);
    expect(result.embeddings.map((e: { embedding: unknown }) => e.embedding)).toEqual(singles);
    expect(result.input_token_count).toBe(all.reduce((sum, t) => sum + localTokenizer().encode(t).length, 0));
  });

  it('2049 texts to Azure: 2048 in the first request, 1 in the second', async () => {
    const r = await embed('azure-openai', [
      '--input-file',
      file('az.json', JSON.stringify(texts(2049))),
      '-o',
      'json',
      '-j',
      'length(embeddings)',
    ]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('2049\n');
    expect(sent().map((q) => (q.json as { input: string[] }).input.length)).toEqual([2048, 1]);
  });

  it('an error in any batch fails the command with exit 4, prints nothing on stdout, and sends no later batch', async () => {
    server.faults.push({ kind: 'delay', ms: 0 }, { kind: 'status', status: 400 });
    const r = await embed('watsonx', ['--input-file', file('wx-fail.json', JSON.stringify(texts(2500)))]);
    expect(r.exitCode).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: watsonx returned HTTP 400 invalid_request_entity/m);
    expect(sent()).toHaveLength(2);
  });

  it('a 429 on one batch is retried and the result is whole', async () => {
    server.faults.push({ kind: 'delay', ms: 0 }, { kind: 'status', status: 429, retryAfterMs: 1 });
    const r = await embed('aleph-alpha', [
      '--input-file',
      file('aa-retry.json', JSON.stringify(texts(150))),
      '--representation',
      'query',
      '-o',
      'json',
      '-j',
      'length(embeddings)',
    ]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('150\n');
    // The second batch twice: answered 429, then served.
    expect(sent().map((q) => (q.json as { prompts: string[] }).prompts.length)).toEqual([100, 50, 50]);
  });
});

describe('embed output', () => {
  it('text: one JSON array per line, one line per text', async () => {
    const r = await embed('watsonx', ['--input-file', '-'], 'one\n\ntwo\nthree\n');
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(3);
    for (const line of lines) {
      const v = JSON.parse(line);
      expect(Array.isArray(v)).toBe(true);
      expect(v).toHaveLength(384);
    }
  });

  it('-o json: {model, dimensions, embeddings: [{index, embedding}], input_token_count} for every provider', async () => {
    for (const provider of ['watsonx', 'azure-openai', 'openai', 'aleph-alpha'] as const) {
      const r = await embed(provider, ['--input-file', '-', '-o', 'json'], '["alpha", "beta"]');
      expect(r.exitCode, provider).toBe(0);
      const result = JSON.parse(r.stdout);
      expect(Object.keys(result), provider).toEqual(['model', 'dimensions', 'embeddings', 'input_token_count']);
      const first = result.embeddings[0].embedding;
      expect(result.dimensions, provider).toBe((Array.isArray(first) ? first : first.layer_40.mean).length);
      expect(result.model, provider).toBe(MODEL[provider]);
      expect(
        result.embeddings.map((e: object) => Object.keys(e)),
        provider,
      ).toEqual([
        ['index', 'embedding'],
        ['index', 'embedding'],
      ]);
      expect(result.input_token_count, provider).toBeGreaterThan(0);
    }
  });

  it('Aleph Alpha layer/pooling results keep their keys; --tokens adds the tokens', async () => {
    const r = await embed('aleph-alpha', [
      'An apple a day',
      '--layers',
      '0,-1',
      '--pooling',
      'mean,max',
      '--tokens',
      '-o',
      'json',
    ]);
    expect(r.exitCode).toBe(0);
    const [entry] = JSON.parse(r.stdout).embeddings;
    expect(Object.keys(entry)).toEqual(['index', 'embedding', 'tokens']);
    expect(Object.keys(entry.embedding)).toEqual(['layer_0', 'layer_40']);
    expect(Object.keys(entry.embedding.layer_0)).toEqual(['mean', 'max']);
    expect(entry.embedding.layer_40.mean).toHaveLength(5120);
    expect(entry.tokens).toEqual(localTokenizer().tokenTexts(localTokenizer().encode('An apple a day')));
  });

  it("text output of several layers prints each text's object on its own line", async () => {
    const r = await embed('aleph-alpha', ['--input-file', '-', '--layers', '0,-1'], 'a\nb\n');
    expect(r.exitCode).toBe(0);
    const lines = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2);
    expect(Object.keys(lines[0])).toEqual(['layer_0', 'layer_40']);
  });

  it('semantic embeddings compressed to 128 dimensions', async () => {
    const r = await embed('aleph-alpha', [
      'Where do rivers start?',
      '--representation',
      'query',
      '--compress-to-size',
      '128',
    ]);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(128);
  });

  it('-j and --raw-output apply to the canonical result; -o yaml and jsonl work', async () => {
    const q = await embed('watsonx', ['Hi', '-o', 'json', '-j', 'model', '--raw-output']);
    expect(q.stdout).toBe('ibm/slate-30m-english-rtrvr\n');
    const y = await embed('watsonx', ['Hi', '-o', 'yaml']);
    expect(y.stdout).toMatch(/^model: ibm\/slate-30m-english-rtrvr\ndimensions: 384\nembeddings:\n {2}- index: 0\n/);
    const l = await embed('watsonx', ['Hi', '-o', 'jsonl']);
    expect(l.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect(JSON.parse(l.stdout).embeddings[0].embedding).toHaveLength(384);
  });
});

describe('embed reads its texts', () => {
  it.each<[string, string[], string | undefined, string[]]>([
    ['the words after the command are one text', ['a', 'b', 'c'], undefined, ['a b c']],
    [
      'a file: one text per line, blank lines skipped, spaces kept',
      ['--input-file', 'lines.txt'],
      undefined,
      ['one', '  two  ', 'three'],
    ],
    ['a file holding a JSON array of strings', ['--input-file', 'array.json'], undefined, ['x\ny', 'z']],
    ['piped stdin, as --input-file -', [], 'p\r\nq\n', ['p', 'q']],
    ['--input-file - with a JSON array', ['--input-file', '-'], ' ["s1","s2"]', ['s1', 's2']],
  ])('%s', async (_name, args, stdin, expected) => {
    file('lines.txt', 'one\n\n  two  \n   \nthree');
    file('array.json', '["x\\ny", "z"]\n');
    const r = await runInProcess([...target('watsonx'), 'embed', '-m', 'ibm/slate-30m-english-rtrvr', ...args], {
      env: { ...home.env, TEXTGEN_SPACE_ID: 's' },
      cwd: home.dir,
      ...(stdin !== undefined ? { input: stdin } : {}),
    });
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect((sent()[0]!.json as { inputs: string[] }).inputs).toEqual(expected);
  });

  it.each<[string, string[], string | undefined, RegExp]>([
    ['no text at all', [], undefined, /missing required option: TEXT/],
    ['words and --input-file together', ['a', '--input-file', 'x.txt'], undefined, /give the texts once/],
    [
      'a file that is not there',
      ['--input-file', 'nope.txt'],
      undefined,
      /--input-file: cannot read nope.txt: no such file/,
    ],
    ['a file of blank lines', ['--input-file', '-'], '\n \n', /--input-file: stdin holds no text to embed/],
    ['an empty JSON array', ['--input-file', '-'], '[]', /holds no text to embed/],
    [
      'a JSON array with a number',
      ['--input-file', '-'],
      '["a", 2]',
      /item 1 of the JSON array in stdin is number, not a string/,
    ],
    [
      'a JSON array with an empty string',
      ['--input-file', '-'],
      '["a", " "]',
      /item 1 of the JSON array in stdin is empty/,
    ],
    ['broken JSON', ['--input-file', '-'], '["a",', /--input-file: invalid JSON from stdin at line 1/],
    ['an empty text', [''], undefined, /TEXT is empty/],
  ])('%s is a usage error and nothing is sent', async (_name, args, stdin, message) => {
    const r = await runInProcess([...target('watsonx'), 'embed', '-m', 'ibm/slate-30m-english-rtrvr', ...args], {
      env: { ...home.env, TEXTGEN_SPACE_ID: 's' },
      cwd: home.dir,
      ...(stdin !== undefined ? { input: stdin } : {}),
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
    expect(sent()).toHaveLength(0);
  });
});

describe('embed refuses what the provider cannot do, before sending anything', () => {
  it.each<[string, Provider, string[], RegExp]>([
    [
      'a provider without embeddings, named',
      'open-inference',
      ['Hi'],
      /^error: embed is not supported by open-inference; it works with watsonx, azure-openai, openai, aleph-alpha$/m,
    ],
    [
      'an Aleph Alpha flag on watsonx',
      'watsonx',
      ['Hi', '--layers', '-1'],
      /--layers is not supported by watsonx for embed; it works with aleph-alpha/,
    ],
    [
      'a watsonx flag on Aleph Alpha',
      'aleph-alpha',
      ['Hi', '--truncate-input-tokens', '5'],
      /--truncate-input-tokens is not supported by aleph-alpha for embed; it works with watsonx/,
    ],
    [
      '--representation on Azure',
      'azure-openai',
      ['Hi', '--representation', 'query'],
      /--representation is not supported by azure-openai/,
    ],
    [
      '--compress-to-size without --representation',
      'aleph-alpha',
      ['Hi', '--compress-to-size', '128'],
      /--compress-to-size applies to semantic embeddings/,
    ],
    [
      '--layers with --representation',
      'aleph-alpha',
      ['Hi', '--layers', '1', '--representation', 'query'],
      /--layers cannot be used with --representation/,
    ],
    [
      'a pooling that does not exist',
      'aleph-alpha',
      ['Hi', '--pooling', 'median'],
      /--pooling must be one of mean, weighted_mean, max, last_token, abs_max, got "median"/,
    ],
    ['a layer that is not an integer', 'aleph-alpha', ['Hi', '--layers', 'last'], /--layers takes integers/],
    [
      'a size other than 128',
      'aleph-alpha',
      ['Hi', '--representation', 'query', '--compress-to-size', '64'],
      /--compress-to-size must be 128/,
    ],
    [
      'an unknown representation',
      'aleph-alpha',
      ['Hi', '--representation', 'passage'],
      /--representation must be one of symmetric, document, query/,
    ],
    [
      'a negative truncation',
      'watsonx',
      ['Hi', '--truncate-input-tokens', '-1'],
      /--truncate-input-tokens must be an integer of 0 or more/,
    ],
    [
      'a boolean flag swallowing the text',
      'aleph-alpha',
      ['--tokens', 'Hi'],
      /--tokens must be true or false, got "Hi"/,
    ],
  ])('%s → exit 2', async (_name, provider, args, message) => {
    const r = await embed(provider, args);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
    expect(server.requests).toHaveLength(0);
  });

  it('no model anywhere: a usage error naming --model; with no text either, both are named', async () => {
    const r = await runInProcess([...target('aleph-alpha'), 'embed', 'Hi'], { env: home.env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/missing required option: --model \(profile "\(ad hoc\)" has no defaults.model\)/);
    const both = await runInProcess([...target('aleph-alpha'), 'embed'], { env: home.env });
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toMatch(/missing required options: --model, TEXT/);
  });

  it('watsonx without a space or project: a usage error', async () => {
    const r = await runInProcess([...target('watsonx'), 'embed', '-m', 'm', 'Hi'], { env: home.env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/needs space_id or project_id for embeddings/);
    expect(server.requests).toHaveLength(0);
  });

  it("the service's own refusal is exit 4 with its code and message", async () => {
    const r = await embed('aleph-alpha', ['Hi', '--layers', '99']);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(/aleph-alpha returned HTTP 400 BAD_REQUEST: Invalid request: layer 99 does not exist/);
    expect(r.stdout).toBe('');
  });
});

describe('embed --dry-run', () => {
  it('prints the request as a curl line and sends nothing', async () => {
    const r = await embed('watsonx', ['Hello', '--dry-run']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(
      `curl -sS -N -X POST '${server.url}/ml/v1/text/embeddings?version=2024-05-01' -H 'content-type: application/json' -H 'accept: application/json' --data-raw '{"inputs":["Hello"],"model_id":"ibm/slate-30m-english-rtrvr","space_id":"space-1"}'\n`,
    );
    expect(server.requests).toHaveLength(0);
  });

  it('prints one curl line per batch, in order', async () => {
    const r = await embed('aleph-alpha', [
      '--input-file',
      file('dry.json', JSON.stringify(texts(201))),
      '--representation',
      'query',
      '--dry-run',
    ]);
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines.every((l) => l.startsWith(`curl -sS -N -X POST '${server.url}/batch_semantic_embed'`))).toBe(true);
    expect(lines[2]).toContain('"prompts":["text number 200 about rivers"]');
    expect(server.requests).toHaveLength(0);
  });

  it('keeps the Azure key out of the line', async () => {
    const r = await runInProcess([...target('azure-openai'), 'embed', '-m', 'ada', 'Hi', '--dry-run'], {
      env: { ...home.env, AZURE_OPENAI_API_KEY: 'sekret-key' },
    });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).not.toContain('sekret-key');
    expect(r.stdout).toContain(`'${server.url}/openai/deployments/ada/embeddings?api-version=2022-03-01-preview'`);
  });
});

describe("a 2xx answer embed cannot use is the provider's error (exit 4), with nothing printed", () => {
  let answer: unknown = {};
  let odd: RunningServer;
  const oddWatsonx: ProtocolModule = {
    name: 'odd-watsonx',
    prefixes: ['/ml/'],
    routes: [
      {
        method: 'POST',
        pattern: '/ml/v1/text/embeddings',
        handler: (ctx) => {
          if (typeof answer === 'string') {
            ctx.res.writeHead(200, { 'content-type': 'text/plain' });
            ctx.res.end(answer);
          } else sendJson(ctx.res, 200, answer);
        },
      },
    ],
    sendError: (ctx, status, code, message) => sendJson(ctx.res, status, { errors: [{ code, message }] }),
  };
  beforeAll(async () => {
    odd = await startServer({ requestLog: { max: 1000 }, protocols: [oddWatsonx] });
  });
  afterAll(async () => {
    await odd.close();
  });

  it.each<[string, unknown, RegExp]>([
    [
      'fewer vectors than texts',
      { model_id: 'm', results: [{ embedding: [1] }], input_token_count: 1 },
      /watsonx returned HTTP 200: unexpected answer: the answer holds 1 embeddings for 2 texts — got: \{"model_id":"m"/,
    ],
    [
      'no results',
      { model_id: 'm' },
      /watsonx returned HTTP 200: unexpected answer: the answer has no "results" array — got: \{"model_id":"m"\}/,
    ],
    ['not JSON', 'all good!', /watsonx returned HTTP 200: unexpected answer: not JSON — got: all good!/],
  ])('%s', async (_name, body, message) => {
    answer = body;
    const r = await runInProcess(['--provider', 'watsonx', '--url', odd.url, 'embed', '-m', 'm', '--input-file', '-'], {
      env: { ...home.env, TEXTGEN_SPACE_ID: 's' },
      input: 'a\nb\n',
    });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
  });
});

describe('embed: every watsonx embedding model has its own dimension', () => {
  it.each([
    ['ibm/slate-125m-english-rtrvr-v2', 768],
    ['ibm/slate-125m-english-rtrvr', 768],
    ['ibm/slate-30m-english-rtrvr-v2', 384],
    ['intfloat/multilingual-e5-large', 1024],
    ['ibm/granite-embedding-278m-multilingual', 768],
    ['ibm/granite-embedding-107m-multilingual', 384],
    ['sentence-transformers/all-minilm-l6-v2', 384],
  ])('%s: vectors of %i numbers, shown as "dimensions"', async (model, dimensions) => {
    const r = await runInProcess([...target('watsonx'), 'embed', '-m', model, '--input-file', '-', '-o', 'json'], {
      env: { ...home.env, TEXTGEN_SPACE_ID: 's' },
      input: 'one river\ntwo rivers\n',
    });
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const result = JSON.parse(r.stdout) as { dimensions: number; embeddings: { embedding: number[] }[] };
    expect(result.dimensions).toBe(dimensions);
    for (const e of result.embeddings) expect(e.embedding).toHaveLength(dimensions);
  });

  it("an unknown model: exit 4 with the service's 404 model_not_supported and a hint to list the models", async () => {
    const r = await runInProcess([...target('watsonx'), 'embed', '-m', 'ibm/slate-999m-imaginary', 'Hi'], {
      env: { ...home.env, TEXTGEN_SPACE_ID: 's' },
    });
    expect(r.exitCode).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^error: watsonx returned HTTP 404 model_not_supported: Model 'ibm\/slate-999m-imaginary' is not supported \(trace [0-9a-f]{32}\)\nhint: run "textgen models" to list the model ids this service offers\n$/,
    );
  });

  it('a generation model: exit 4 with model_no_support_for_function', async () => {
    const r = await runInProcess([...target('watsonx'), 'embed', '-m', 'ibm/granite-4-h-small', 'Hi'], {
      env: { ...home.env, TEXTGEN_SPACE_ID: 's' },
    });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(
      /HTTP 400 model_no_support_for_function: Model 'ibm\/granite-4-h-small' does not support function 'function_embedding'/,
    );
  });
});
