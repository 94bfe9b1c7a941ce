import { stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { localTokenizer } from '../../profiles/aleph-alpha/server/tokenizer.js';
import { startServer, type RecordedRequest, type RunningServer } from '../../src/emulator/core/index.js';
import { tokenizerCacheFile } from '../../src/flows/tokenizer-cache.js';
import { expectValidTokenizeWire } from '../contract/tokenize-schemas.js';
import { makeHome, runInProcess } from '../helpers/run-cli.js';

/** One server that checks credentials, as the services do; each provider's credential rides on every request. */
const KEY = 'tokenize-test-key';
let server: RunningServer;
let home = makeHome();

beforeAll(async () => {
  server = await startServer({ requestLog: { max: 1000 }, requireAuth: true, apiKeys: [KEY] });
});
afterAll(async () => {
  await server.close();
  home.cleanup();
});
afterEach(() => {
  expectValidTokenizeWire(server.requests);
  server.requests.length = 0;
});

type Kind = 'watsonx' | 'azure-openai' | 'openai' | 'aleph-alpha' | 'open-inference';

/** `--provider K --url U` with K's credential; watsonx exchanges its API key at the local IAM endpoint. */
function cli(kind: Kind, args: string[], opts: { input?: string; env?: Record<string, string>; url?: string } = {}) {
  const credential = kind === 'watsonx' ? [] : kind === 'azure-openai' ? ['--api-key', KEY] : ['--token', KEY];
  const env = {
    ...home.env,
    ...(kind === 'watsonx'
      ? { TEXTGEN_API_KEY: KEY, TEXTGEN_IAM_URL: `${server.url}/identity/token`, TEXTGEN_SPACE_ID: 'space-1' }
      : {}),
    ...opts.env,
  };
  return runInProcess(['--provider', kind, '--url', opts.url ?? server.url, ...credential, ...args], {
    env,
    ...(opts.input !== undefined ? { input: opts.input } : {}),
  });
}

/** The requests of the command itself (the IAM token exchange left out). */
function sent(): RecordedRequest[] {
  return server.requests.filter((r) => r.path !== '/identity/token');
}

const AA_PROMPT = 'An apple a day keeps the doctor away.';
const aaIds = () => localTokenizer().encode(AA_PROMPT);
const aaTokens = () => localTokenizer().tokenTexts(aaIds());

describe('tokenize on the services that have an endpoint', () => {
  it.each<[string, Kind, string[], { path: string; body: unknown }, string]>([
    [
      'watsonx counts',
      'watsonx',
      ['-m', 'ibm/granite-13b-instruct-v2', 'Hello', 'world'],
      {
        path: '/ml/v1/text/tokenization',
        body: { model_id: 'ibm/granite-13b-instruct-v2', input: 'Hello world', space_id: 'space-1' },
      },
      '2\n',
    ],
    [
      'watsonx lists tokens',
      'watsonx',
      ['-m', 'ibm/granite-13b-instruct-v2', 'Hello world', '--tokens'],
      {
        path: '/ml/v1/text/tokenization',
        body: {
          model_id: 'ibm/granite-13b-instruct-v2',
          input: 'Hello world',
          space_id: 'space-1',
          parameters: { return_tokens: true },
        },
      },
      '"Hello"\n" world"\n',
    ],
    [
      'aleph-alpha counts',
      'aleph-alpha',
      ['-m', 'luminous-base', AA_PROMPT],
      { path: '/tokenize', body: { model: 'luminous-base', prompt: AA_PROMPT, tokens: false, token_ids: true } },
      `${aaIds().length}\n`,
    ],
    [
      'aleph-alpha lists ids',
      'aleph-alpha',
      ['-m', 'luminous-base', AA_PROMPT, '--ids'],
      { path: '/tokenize', body: { model: 'luminous-base', prompt: AA_PROMPT, tokens: false, token_ids: true } },
      `${aaIds().join(' ')}\n`,
    ],
    [
      'aleph-alpha lists tokens',
      'aleph-alpha',
      ['-m', 'luminous-base', AA_PROMPT, '--tokens'],
      { path: '/tokenize', body: { model: 'luminous-base', prompt: AA_PROMPT, tokens: true, token_ids: false } },
      aaTokens()
        .map((t) => `${JSON.stringify(t)}\n`)
        .join(''),
    ],
    [
      'aleph-alpha lists both',
      'aleph-alpha',
      ['-m', 'luminous-base', AA_PROMPT, '--tokens', '--ids'],
      { path: '/tokenize', body: { model: 'luminous-base', prompt: AA_PROMPT, tokens: true, token_ids: true } },
      aaTokens()
        .map((t, i) => `${aaIds()[i]}\t${JSON.stringify(t)}\n`)
        .join(''),
    ],
  ])('%s: the wire request and the text output', async (_n, kind, args, wire, stdout) => {
    const r = await cli(kind, ['tokenize', ...args]);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(stdout);
    const reqs = sent();
    expect(reqs.map((q) => q.path)).toStrictEqual([wire.path]);
    expect(reqs[0]?.json).toStrictEqual(wire.body);
    expect(reqs[0]?.headers.authorization).toMatch(/^Bearer \S+$/);
  });

  // -o json is the whole result the help promises, {model, encoding, token_count, tokens, ids}, whatever is listed for
  // text output (watsonx answers without ids).
  const helloIds = () => localTokenizer().encode('Hello world');
  it.each<[Kind, string[], Record<string, unknown>]>([
    [
      'watsonx',
      ['-m', 'ibm/granite-13b-instruct-v2', '--tokens'],
      { model: 'ibm/granite-13b-instruct-v2', token_count: 2, tokens: ['Hello', ' world'] },
    ],
    [
      'watsonx',
      ['-m', 'ibm/granite-13b-instruct-v2'],
      { model: 'ibm/granite-13b-instruct-v2', token_count: 2, tokens: ['Hello', ' world'] },
    ],
    [
      'aleph-alpha',
      ['-m', 'luminous-base', '--ids'],
      {
        model: 'luminous-base',
        token_count: helloIds().length,
        tokens: localTokenizer().tokenTexts(helloIds()),
        ids: helloIds(),
      },
    ],
  ])('%s %j: -o json has the canonical keys in order', async (kind, args, expected) => {
    const r = await cli(kind, ['tokenize', 'Hello world', ...args, '-o', 'json']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(`${JSON.stringify(expected, null, 2)}\n`);
  });

  it('watsonx --ids is a usage error (its answers carry no ids), nothing sent', async () => {
    const r = await cli('watsonx', ['tokenize', '-m', 'm', 'Hi', '--ids']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^error: watsonx's tokenization answers with token texts and a count, not ids/m);
    expect(server.requests).toHaveLength(0);
  });

  it("the service's error keeps its words and exit code 4", async () => {
    const r = await cli('aleph-alpha', ['tokenize', '-m', 'gpt-4', 'Hi']);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(/^error: aleph-alpha returned HTTP 404 UNKNOWN_MODEL: Unknown model 'gpt-4'/m);
  });

  it('refused credentials are exit 3', async () => {
    const r = await runInProcess(
      ['--provider', 'aleph-alpha', '--url', server.url, '--token', 'wrong', 'tokenize', '-m', 'luminous-base', 'Hi'],
      { env: home.env },
    );
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toMatch(/aleph-alpha returned HTTP 401 UNAUTHENTICATED/);
  });

  it('a model is required for a service', async () => {
    const r = await cli('aleph-alpha', ['tokenize', 'Hi']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/missing required option: --model/);
    expect(server.requests).toHaveLength(0);
  });

  it('watsonx without a space or project says so', async () => {
    const r = await cli('watsonx', ['tokenize', '-m', 'm', 'Hi'], { env: { TEXTGEN_SPACE_ID: '' } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/needs space_id or project_id for tokenization/);
  });
});

describe('tokenize offline with a public encoding', () => {
  it.each<[string, Kind, string[], string]>([
    [
      'azure-openai (cl100k_base for gpt-35-turbo-instruct)',
      'azure-openai',
      ['-m', 'gpt-35-turbo-instruct', '--ids'],
      '15339 1917\n',
    ],
    ['openai (o200k_base for gpt-4o)', 'openai', ['-m', 'gpt-4o', '--ids'], '24912 2375\n'],
    ['openai (r50k_base for davinci)', 'openai', ['-m', 'davinci', '--ids'], '31373 995\n'],
    [
      'open-inference with --encoding',
      'open-inference',
      ['-m', 'demo', '--encoding', 'p50k_base', '--ids'],
      '31373 995\n',
    ],
    ['watsonx with --encoding', 'watsonx', ['--encoding', 'cl100k_base', '--ids'], '15339 1917\n'],
    [
      'watsonx --local with a model of a public encoding',
      'watsonx',
      ['--local', '-m', 'gpt-4', '--ids'],
      '15339 1917\n',
    ],
    ['aleph-alpha with --encoding', 'aleph-alpha', ['--encoding', 'o200k_base', '--ids'], '24912 2375\n'],
    ['azure-openai counts', 'azure-openai', ['-m', 'gpt-4'], '2\n'],
    ['azure-openai --count', 'azure-openai', ['-m', 'gpt-4', '--count'], '2\n'],
    ['azure-openai lists tokens', 'azure-openai', ['-m', 'gpt-4', '--tokens'], '"hello"\n" world"\n'],
  ])('%s: nothing is sent', async (_n, kind, args, stdout) => {
    const r = await cli(kind, ['tokenize', 'hello world', ...args]);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(stdout);
    expect(server.requests).toHaveLength(0);
  });

  it('-o json names the model and the encoding', async () => {
    const r = await cli('azure-openai', [
      'tokenize',
      'hello world',
      '-m',
      'gpt-35-turbo',
      '--tokens',
      '--ids',
      '-o',
      'json',
    ]);
    expect(JSON.parse(r.stdout)).toStrictEqual({
      model: 'gpt-35-turbo',
      encoding: 'cl100k_base',
      token_count: 2,
      tokens: ['hello', ' world'],
      ids: [15339, 1917],
    });
    expect(Object.keys(JSON.parse(r.stdout))).toStrictEqual(['model', 'encoding', 'token_count', 'tokens', 'ids']);
  });

  it('--encoding alone needs no profile, no config and no server', async () => {
    const fresh = makeHome();
    try {
      const r = await runInProcess(['tokenize', '--encoding', 'r50k_base', 'Hello', '-o', 'json', '--ids'], {
        env: fresh.env,
      });
      expect(r.exitCode).toBe(0);
      expect(JSON.parse(r.stdout)).toStrictEqual({
        encoding: 'r50k_base',
        token_count: 1,
        tokens: ['Hello'],
        ids: [15496],
      });
    } finally {
      fresh.cleanup();
    }
  });

  it.each<[string, string[], unknown]>([
    ['--count -o json', ['--count', '-o', 'json'], 2],
    ['-j ids', ['--ids', '-o', 'json', '-j', 'ids'], [15339, 1917]],
    ['-j with text output', ['--ids', '-j', 'token_count'], 2],
  ])('%s prints JSON for scripts', async (_n, args, value) => {
    const r = await cli('openai', ['tokenize', 'hello world', '-m', 'gpt-4', ...args]);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toStrictEqual(value);
  });

  it('-o yaml', async () => {
    const r = await cli('openai', ['tokenize', 'hello world', '-m', 'gpt-4', '-o', 'yaml']);
    expect(r.stdout).toBe(
      'model: gpt-4\nencoding: cl100k_base\ntoken_count: 2\ntokens:\n  - hello\n  - " world"\nids:\n  - 15339\n  - 1917\n',
    );
  });

  it('reads the text from stdin or a file', async () => {
    const piped = await cli('openai', ['tokenize', '-m', 'gpt-4', '--ids'], { input: 'hello world' });
    expect(piped.stdout).toBe('15339 1917\n');
    const fromFile = await cli('openai', [
      'tokenize',
      '-m',
      'gpt-4',
      '--ids',
      '--input-file',
      join(import.meta.dirname, '../../package.json'),
    ]);
    expect(fromFile.exitCode).toBe(0);
    expect(fromFile.stdout).toMatch(/^\d+( \d+)+\n$/);
  });

  it.each<[string, Kind, string[], RegExp]>([
    [
      'an unknown model',
      'azure-openai',
      ['-m', 'my-deployment'],
      /no public encoding is known for azure-openai model "my-deployment" to tokenize offline\nhint: name one with --encoding NAME/,
    ],
    [
      "open-inference's demo model",
      'open-inference',
      ['-m', 'demo'],
      /no public encoding is known for open-inference model "demo"/,
    ],
    [
      'watsonx --local',
      'watsonx',
      ['--local', '-m', 'ibm/granite-13b-instruct-v2'],
      /no public encoding is known for watsonx model "ibm\/granite-13b-instruct-v2" to tokenize offline/,
    ],
    [
      'no model at all',
      'openai',
      [],
      /a model or an encoding is needed to tokenize offline: give --model NAME or --encoding NAME/,
    ],
    [
      'an unknown encoding',
      'openai',
      ['--encoding', 'gpt2'],
      /--encoding must be one of r50k_base, p50k_base, cl100k_base, o200k_base, got "gpt2"/,
    ],
    [
      '--count with --tokens',
      'openai',
      ['-m', 'gpt-4', '--count', '--tokens'],
      /--count prints only the number; leave out --tokens/,
    ],
    ['words and --input-file', 'openai', ['-m', 'gpt-4', '--input-file', 'x.txt'], /give the text once/],
    ['a bad -o', 'openai', ['-m', 'gpt-4', '-o', 'csv'], /--output must be one of/],
  ])('%s is a usage error, nothing sent', async (_n, kind, args, message) => {
    const r = await cli(kind, ['tokenize', 'hello', ...args]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(server.requests).toHaveLength(0);
  });

  it('no text at all is a usage error', async () => {
    const r = await cli('openai', ['tokenize', '-m', 'gpt-4']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/missing required argument: TEXT/);
  });
});

describe("tokenize --local on Aleph Alpha: the model's own tokenizer, fetched once", () => {
  it('fetches /models/{model}/tokenizer once, caches it 0600, and agrees with the service', async () => {
    home.cleanup();
    home = makeHome();
    const online = await cli('aleph-alpha', [
      'tokenize',
      '-m',
      'luminous-base',
      AA_PROMPT,
      '--tokens',
      '--ids',
      '-o',
      'json',
    ]);
    server.requests.length = 0;

    const first = await cli('aleph-alpha', [
      'tokenize',
      '-m',
      'luminous-base',
      AA_PROMPT,
      '--tokens',
      '--ids',
      '-o',
      'json',
      '--local',
    ]);
    expect(first.stderr).toBe('');
    expect(first.exitCode).toBe(0);
    expect(first.stdout).toBe(online.stdout);
    expect(sent().map((q) => `${q.method} ${q.path}`)).toStrictEqual(['GET /models/luminous-base/tokenizer']);
    expect(sent()[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
    const file = tokenizerCacheFile(home.env, server.url, 'luminous-base');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    server.requests.length = 0;

    const second = await cli('aleph-alpha', [
      'tokenize',
      '-m',
      'luminous-base',
      AA_PROMPT,
      '--tokens',
      '--ids',
      '-o',
      'json',
      '--local',
    ]);
    expect(second.stdout).toBe(online.stdout);
    expect(server.requests).toHaveLength(0);

    const decoded = await cli('aleph-alpha', ['detokenize', '-m', 'luminous-base', '--local', ...aaIds().map(String)]);
    expect(decoded.stdout).toBe(`${AA_PROMPT}\n`);
    expect(server.requests).toHaveLength(0);
  });

  it('a damaged cache file is fetched again', async () => {
    const { writeCachedTokenizer } = await import('../../src/flows/tokenizer-cache.js');
    await writeCachedTokenizer(tokenizerCacheFile(home.env, server.url, 'luminous-extended'), '{"model":');
    const r = await cli('aleph-alpha', ['tokenize', '-m', 'luminous-extended', 'Hi', '--local']);
    expect(r.exitCode).toBe(0);
    expect(sent().map((q) => q.path)).toStrictEqual(['/models/luminous-extended/tokenizer']);
  });

  it("an unknown model is the service's 404", async () => {
    const r = await cli('aleph-alpha', ['tokenize', '-m', 'gpt-4', 'Hi', '--local']);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(/aleph-alpha returned HTTP 404 UNKNOWN_MODEL/);
  });
});

describe('detokenize', () => {
  it('Aleph Alpha decodes on the service', async () => {
    const r = await cli('aleph-alpha', [
      'detokenize',
      '-m',
      'luminous-base',
      ...aaIds().slice(0, 3).map(String),
      '-o',
      'json',
    ]);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toStrictEqual({
      model: 'luminous-base',
      text: localTokenizer().decode(aaIds().slice(0, 3)),
    });
    expect(sent().map((q) => q.json)).toStrictEqual([{ model: 'luminous-base', token_ids: aaIds().slice(0, 3) }]);
  });

  it.each<[string, Kind, string[], string]>([
    ['azure-openai, ids as words', 'azure-openai', ['-m', 'gpt-4', '15339', '1917'], 'hello world\n'],
    ['openai, comma-separated', 'openai', ['-m', 'gpt-4o', '24912,2375'], 'hello world\n'],
    ['open-inference with --encoding', 'open-inference', ['--encoding', 'r50k_base', '15496'], 'Hello\n'],
    ['watsonx with --encoding', 'watsonx', ['--encoding', 'cl100k_base', '[15339,', '1917]'], 'hello world\n'],
  ])('%s decodes offline, nothing sent', async (_n, kind, args, stdout) => {
    const r = await cli(kind, ['detokenize', ...args]);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(stdout);
    expect(server.requests).toHaveLength(0);
  });

  it('-o json names the encoding', async () => {
    const r = await cli('azure-openai', ['detokenize', '-m', 'gpt-4', '15339', '1917', '-o', 'json']);
    expect(r.stdout).toBe(
      `${JSON.stringify({ model: 'gpt-4', encoding: 'cl100k_base', text: 'hello world' }, null, 2)}\n`,
    );
  });

  it('reads the ids from stdin: tokenize --ids | detokenize', async () => {
    const text = 'Round trips: “quotes”, 🌍, and\nnew lines.';
    const ids = await cli('openai', ['tokenize', '-m', 'gpt-4o', '--ids'], { input: text });
    const back = await cli('openai', ['detokenize', '-m', 'gpt-4o', '-o', 'json', '-j', 'text'], { input: ids.stdout });
    expect(JSON.parse(back.stdout)).toBe(text);
  });

  it.each<[string, Kind, string[], RegExp]>([
    [
      'watsonx without an encoding',
      'watsonx',
      ['-m', 'ibm/granite-13b-instruct-v2', '1', '2'],
      /^error: detokenize: watsonx has no detokenize endpoint, and no public encoding is known for model "ibm\/granite-13b-instruct-v2"\nhint: decode offline with --encoding NAME/m,
    ],
    ['an id that is not a number', 'openai', ['-m', 'gpt-4', '12a'], /detokenize: "12a" is not a token id/],
    ['a negative id', 'openai', ['-m', 'gpt-4', '-5'], /detokenize: "-5" is not a token id \(a whole number from 0\)/],
    ['no ids', 'openai', ['-m', 'gpt-4'], /missing required argument: IDS/],
    ['an id outside the encoding', 'openai', ['-m', 'gpt-4', '999999'], /token id 999999 is not in cl100k_base/],
  ])('%s is a usage error, nothing sent', async (_n, kind, args, message) => {
    const r = await cli(kind, ['detokenize', ...args]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(server.requests).toHaveLength(0);
  });

  it('an id the service does not know is its 400', async () => {
    const r = await cli('aleph-alpha', ['detokenize', '-m', 'luminous-base', '999999']);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(/aleph-alpha returned HTTP 400 BAD_REQUEST: Invalid request: token id 999999/);
  });
});

describe('--dry-run', () => {
  it.each<[string, Kind, string[], RegExp]>([
    [
      'watsonx tokenize',
      'watsonx',
      ['tokenize', '-m', 'm', 'Hi', '--tokens'],
      /^curl .*-X POST '.*\/ml\/v1\/text\/tokenization\?version=2024-05-01'.*--data-raw '\{"model_id":"m","input":"Hi","space_id":"space-1","parameters":\{"return_tokens":true\}\}'\n$/,
    ],
    [
      'aleph-alpha tokenize',
      'aleph-alpha',
      ['tokenize', '-m', 'luminous-base', 'Hi'],
      /^curl .*-X POST '.*\/tokenize'.*-H "authorization: Bearer \$\{TEXTGEN_TOKEN\}".*--data-raw '\{"model":"luminous-base","prompt":"Hi","tokens":false,"token_ids":true\}'\n$/,
    ],
    [
      'aleph-alpha detokenize',
      'aleph-alpha',
      ['detokenize', '-m', 'luminous-base', '1,2'],
      /^curl .*'.*\/detokenize'.*--data-raw '\{"model":"luminous-base","token_ids":\[1,2\]\}'\n$/,
    ],
    [
      'aleph-alpha --local without a cached tokenizer',
      'aleph-alpha',
      ['tokenize', '-m', 'luminous-supreme', 'Hi', '--local'],
      /^curl .*'.*\/models\/luminous-supreme\/tokenizer'/,
    ],
  ])('%s prints the curl line and sends nothing', async (_n, kind, args, line) => {
    const r = await cli(kind, ['--dry-run', ...args]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(line);
    expect(r.stdout).not.toContain(KEY);
    expect(server.requests).toHaveLength(0);
  });

  it.each<[Kind, string[]]>([
    ['azure-openai', ['tokenize', '-m', 'gpt-4', 'Hi']],
    ['openai', ['detokenize', '-m', 'gpt-4', '1']],
  ])('%s offline: nothing to send, said on stderr', async (kind, args) => {
    const r = await cli(kind, ['--dry-run', ...args]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/nothing to send: (de)?tokenize runs offline with cl100k_base/);
  });
});

describe('an answer without the fields the command needs', () => {
  let odd: Server;
  let url = '';
  beforeAll(async () => {
    odd = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(req.url?.startsWith('/models/') ? '{"model":{"type":"WordPiece","vocab":{}}}' : '{"surprise":true}');
      });
    });
    await new Promise<void>((resolve) => odd.listen(0, '127.0.0.1', resolve));
    const address = odd.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    url = `http://127.0.0.1:${address.port}`;
  });
  afterAll(async () => {
    odd.closeAllConnections();
    await new Promise<void>((resolve) => odd.close(() => resolve()));
  });

  it.each<[string, string[], RegExp]>([
    [
      'tokenize',
      ['tokenize', '-m', 'luminous-base', 'Hi'],
      /^error: aleph-alpha returned HTTP 200: unexpected answer: the answer has no "token_ids" list of integers — got: \{.*\}$/m,
    ],
    [
      'detokenize',
      ['detokenize', '-m', 'luminous-base', '1'],
      /^error: aleph-alpha returned HTTP 200: unexpected answer: the answer has no "result" string — got: \{.*\}$/m,
    ],
  ])('%s: exit 4 naming what is missing', async (_n, args, message) => {
    const r = await cli('aleph-alpha', args, { url });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(message);
  });

  it('a tokenizer file of another kind is a clear usage error, and is not cached', async () => {
    const r = await cli('aleph-alpha', ['tokenize', '-m', 'luminous-base', 'Hi', '--local'], { url });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(
      /offline tokenization supports byte-level BPE tokenizers only; this tokenizer has a WordPiece model/,
    );
    await expect(stat(tokenizerCacheFile(home.env, url, 'luminous-base'))).rejects.toThrow();
  });
});
