import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { startServer, type RunningServer } from '../../src/emulator/core/index.js';
import { makeHome, runInProcess } from '../helpers/run-cli.js';
import {
  expectValidTaskWire,
  JPEG_START,
  makeDocx,
  TINY_PNG,
  TINY_PNG_BASE64,
} from '../helpers/aleph-alpha-task-fixtures.js';
import {
  alephAlphaEvaluationResultSchema,
  alephAlphaExplanationResponseSchema,
  alephAlphaQaResponseSchema,
  alephAlphaSummarizationResponseSchema,
} from '../contract/aleph-alpha-task-schemas.js';

/**
 * The four Aleph Alpha task commands in-process against the embedded server (every protocol, so the other providers'
 * profiles point somewhere real), with a profile per provider. Every task request is checked against the 1.16 schemas.
 */
const home = makeHome();
const files = join(home.dir, 'files');
let server: RunningServer;
let secured: RunningServer;
const TASK_PATHS = ['/evaluate', '/explain', '/qa', '/summarize'];

beforeAll(async () => {
  server = await startServer({ requestLog: { max: 1000 } });
  secured = await startServer({ requestLog: { max: 1000 }, requireAuth: true, apiKeys: ['aa-token'] });
  const url = server.url;
  mkdirSync(join(home.dir, 'config', 'textgen'), { recursive: true });
  writeFileSync(
    join(home.dir, 'config', 'textgen', 'config.yaml'),
    [
      'default_profile: aa',
      'profiles:',
      `  aa: { provider: aleph-alpha, url: "${url}", defaults: { model: luminous-base } }`,
      `  aa-hosted: { provider: aleph-alpha, url: "${url}", defaults: { model: luminous-extended, hosting: aleph-alpha } }`,
      `  aa-bare: { provider: aleph-alpha, url: "${url}" }`,
      `  wx: { provider: watsonx, url: "${url}", defaults: { model: luminous-base } }`,
      `  azure: { provider: azure-openai, url: "${url}", api_version: "2022-03-01-preview" }`,
      `  openai: { provider: openai, url: "${url}/v1" }`,
      `  oip: { provider: open-inference, url: "${url}" }`,
      '',
    ].join('\n'),
  );
  mkdirSync(files, { recursive: true });
  writeFileSync(join(files, 'dot.png'), TINY_PNG);
  writeFileSync(join(files, 'photo.jpeg'), JPEG_START);
  writeFileSync(join(files, 'notes.txt'), 'Andreas likes pizza. Ben likes soup.\n');
  writeFileSync(join(files, 'report.docx'), makeDocx(['Carla likes pasta.', 'Dan likes rice.']));
  writeFileSync(join(files, 'odd.docx'), 'any bytes at all');
  writeFileSync(
    join(files, 'items.json'),
    JSON.stringify([
      { type: 'image', data: TINY_PNG_BASE64 },
      { type: 'text', data: 'A picture of' },
    ]),
  );
  writeFileSync(join(files, 'anim.gif'), 'GIF89a');
});
afterEach(() => {
  expectValidTaskWire(server.requests);
  server.requests.length = 0;
  server.faults.length = 0;
  secured.requests.length = 0;
});
afterAll(async () => {
  await server.close();
  await secured.close();
  home.cleanup();
});

function cli(args: string[], input?: string) {
  return runInProcess(args, { env: home.env, cwd: files, ...(input !== undefined ? { input } : {}) });
}

function taskRequests() {
  return server.requests.filter((r) => TASK_PATHS.includes(r.path));
}

function sent(): { path: string; query: Record<string, string>; body: unknown } {
  const reqs = taskRequests();
  expect(reqs).toHaveLength(1);
  return { path: reqs[0]!.path, query: reqs[0]!.query, body: reqs[0]!.json };
}

const docxBase64 = () => makeDocx(['Carla likes pasta.', 'Dan likes rice.']).toString('base64');

describe('each command sends the 1.16 request', () => {
  test.each<[string, string[], { path: string; query?: Record<string, string>; body: unknown }]>([
    [
      "evaluate: the profile's model",
      ['evaluate', '--prompt', 'An apple a day', '--expected', ' keeps'],
      { path: '/evaluate', body: { model: 'luminous-base', prompt: 'An apple a day', completion_expected: ' keeps' } },
    ],
    [
      'evaluate: -m, hosting from the profile, --nice',
      ['--profile', 'aa-hosted', 'evaluate', '-m', 'luminous-supreme', '--prompt', 'x', '--expected', '', '--nice'],
      {
        path: '/evaluate',
        query: { nice: 'true' },
        body: { model: 'luminous-supreme', hosting: 'aleph-alpha', prompt: 'x', completion_expected: '' },
      },
    ],
    [
      'evaluate: --nice=false sends no nice',
      ['evaluate', '--prompt', 'x', '--expected', 'y', '--nice=false'],
      { path: '/evaluate', query: {}, body: { model: 'luminous-base', prompt: 'x', completion_expected: 'y' } },
    ],
    [
      'evaluate: an image and the text after it',
      ['evaluate', '--image', '@dot.png', '--prompt', 'A picture of', '--expected', ' a dot'],
      {
        path: '/evaluate',
        body: {
          model: 'luminous-base',
          prompt: [
            { type: 'image', data: TINY_PNG_BASE64 },
            { type: 'text', data: 'A picture of' },
          ],
          completion_expected: ' a dot',
        },
      },
    ],
    [
      'evaluate: two images (PNG, JPEG), in order',
      ['evaluate', '--image', '@dot.png', '--image', 'photo.jpeg', '--expected', 'x'],
      {
        path: '/evaluate',
        body: {
          model: 'luminous-base',
          prompt: [
            { type: 'image', data: TINY_PNG_BASE64 },
            { type: 'image', data: JPEG_START.toString('base64') },
          ],
          completion_expected: 'x',
        },
      },
    ],
    [
      'evaluate: --prompt-json',
      ['evaluate', '--prompt-json', '@items.json', '--expected', ' a dot'],
      {
        path: '/evaluate',
        body: {
          model: 'luminous-base',
          prompt: [
            { type: 'image', data: TINY_PNG_BASE64 },
            { type: 'text', data: 'A picture of' },
          ],
          completion_expected: ' a dot',
        },
      },
    ],
    [
      'explain: prompt and target only',
      ['explain', '--prompt', 'An apple a day', '--target', ' keeps'],
      { path: '/explain', body: { model: 'luminous-base', prompt: 'An apple a day', target: ' keeps' } },
    ],
    [
      'explain: every option',
      [
        'explain',
        '--prompt',
        'An apple a day',
        '--target',
        ' keeps',
        '--granularity',
        'WORD',
        '--target-granularity',
        'token',
        '--postprocessing',
        'absolute',
        '--normalize',
        '--nice',
      ],
      {
        path: '/explain',
        query: { nice: 'true' },
        body: {
          model: 'luminous-base',
          prompt: 'An apple a day',
          target: ' keeps',
          postprocessing: 'absolute',
          normalize: true,
          prompt_granularity: { type: 'word' },
          target_granularity: 'token',
        },
      },
    ],
    [
      'explain: --delimiter implies custom granularity',
      ['explain', '--prompt', 'a|b', '--target', 'c', '--delimiter', '|', '--normalize=false'],
      {
        path: '/explain',
        body: {
          model: 'luminous-base',
          prompt: 'a|b',
          target: 'c',
          normalize: false,
          prompt_granularity: { type: 'custom', delimiter: '|' },
        },
      },
    ],
    [
      'explain: an image',
      ['explain', '--image', '@dot.png', '--target', ' a dot'],
      {
        path: '/explain',
        body: { model: 'luminous-base', prompt: [{ type: 'image', data: TINY_PNG_BASE64 }], target: ' a dot' },
      },
    ],
    [
      'qa: text documents in order, no model',
      ['qa', '--query', 'Who likes pizza?', '--document', 'Andreas likes pizza.', '--document', '@notes.txt'],
      {
        path: '/qa',
        body: {
          query: 'Who likes pizza?',
          documents: [{ text: 'Andreas likes pizza.' }, { text: 'Andreas likes pizza. Ben likes soup.\n' }],
        },
      },
    ],
    [
      'qa: a .docx as base64, --max-answers, hosting',
      [
        '--profile',
        'aa-hosted',
        'qa',
        '--query',
        'Who likes pasta?',
        '--document',
        '@report.docx',
        '--max-answers',
        '2',
      ],
      {
        path: '/qa',
        body: {
          hosting: 'aleph-alpha',
          query: 'Who likes pasta?',
          documents: [{ docx: docxBase64() }],
          max_answers: 2,
        },
      },
    ],
    [
      'summarize: a text file, no model',
      ['summarize', '--document', '@notes.txt'],
      { path: '/summarize', body: { document: { text: 'Andreas likes pizza. Ben likes soup.\n' } } },
    ],
    [
      'summarize: a .docx',
      ['summarize', '--document', '@report.docx', '--nice'],
      { path: '/summarize', query: { nice: 'true' }, body: { document: { docx: docxBase64() } } },
    ],
  ])('%s', async (_name, args, expected) => {
    const r = await cli(args);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const got = sent();
    expect(got.path).toBe(expected.path);
    expect(got.body).toStrictEqual(expected.body);
    if (expected.query) expect(got.query).toEqual(expected.query);
  });

  test('the prompt can be piped (evaluate, explain), and so can the document (summarize)', async () => {
    expect((await cli(['evaluate', '--expected', ' keeps'], 'An apple a day')).exitCode).toBe(0);
    expect(sent().body).toMatchObject({ prompt: 'An apple a day' });
    server.requests.length = 0;
    expect((await cli(['explain', '--target', ' keeps'], 'An apple a day')).exitCode).toBe(0);
    expect(sent().body).toMatchObject({ prompt: 'An apple a day' });
    server.requests.length = 0;
    expect((await cli(['summarize'], 'Rivers carry water. They shape valleys.')).exitCode).toBe(0);
    expect(sent().body).toEqual({ document: { text: 'Rivers carry water. They shape valleys.' } });
    server.requests.length = 0;
    expect((await cli(['qa', '--query', 'Who?', '--document', '@-'], 'Andreas likes pizza.')).exitCode).toBe(0);
    expect(sent().body).toEqual({ query: 'Who?', documents: [{ text: 'Andreas likes pizza.' }] });
  });

  test('any bytes named .docx go as they are: the CLI only encodes them', async () => {
    expect((await cli(['qa', '--query', 'Who?', '--document', '@odd.docx', '--dry-run'])).exitCode).toBe(0);
    const r = await cli(['summarize', '--document', '@odd.docx']);
    // The local server reads Word files, so it says this one is none.
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(
      /aleph-alpha returned HTTP 400 BAD_REQUEST: Invalid request: 'document.docx' is not a Word document/,
    );
    expect(sent().body).toEqual({ document: { docx: Buffer.from('any bytes at all').toString('base64') } });
  });
});

describe("output: the service's objects as JSON, readable text by default", () => {
  test('evaluate -o json: model_id, model_version, result, num_tokens_prompt_total', async () => {
    const r = await cli([
      'evaluate',
      '--prompt',
      'An apple a day',
      '--expected',
      ' keeps the doctor away.',
      '-o',
      'json',
    ]);
    expect(r.exitCode).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(Object.keys(body)).toEqual(['model_id', 'model_version', 'result', 'num_tokens_prompt_total']);
    expect(body.model_id).toBe('luminous-base');
    expect(alephAlphaEvaluationResultSchema.safeParse(body.result).success).toBe(true);
  });

  test('evaluate text: log probability, perplexity, correct greedy — and greedy text from complete is correct', async () => {
    const greedy = await cli(['complete', '--greedy', '--max-tokens', '6', 'An apple a day']);
    const expected = greedy.stdout.replace(/\n$/, '');
    const r = await cli(['evaluate', '--prompt', 'An apple a day', '--expected', expected]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(
      /^log probability {4}-\d+\.\d{4} {2}\(\d+ tokens, \d+ characters\)\nperplexity {9}\d+\.\d{4} {2}\(per token\)\ncorrect greedy {5}yes\n$/,
    );
    const miss = await cli(['evaluate', '--prompt', 'An apple a day', '--expected', ' keeps the doctor away.']);
    expect(miss.stdout).toMatch(/\ncorrect greedy {5}no\ngreedy completion {2}".+"\n$/);
  });

  test('explain text: "score  span" lines over the prompt', async () => {
    const r = await cli([
      'explain',
      '--prompt',
      'An apple a day. Keep the doctor away.',
      '--target',
      ' Apples',
      '--granularity',
      'sentence',
    ]);
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^ *-?\d\.\d{4} {2}"An apple a day\."$/);
    expect(lines[1]).toMatch(/^ *-?\d\.\d{4} {2}"Keep the doctor away\."$/);
  });

  test('explain -o json: the explanations, checked against the response schema', async () => {
    const r = await cli([
      'explain',
      '--image',
      '@dot.png',
      '--prompt',
      'A dot',
      '--target',
      ' dot',
      '--granularity',
      'sentence',
      '-o',
      'json',
    ]);
    const body = JSON.parse(r.stdout);
    expect(body.model_id).toBe('luminous-base');
    const { model_id: _id, ...service } = body;
    expect(alephAlphaExplanationResponseSchema.safeParse(service).success).toBe(true);
    expect(body.explanations[0].items.map((i: { type: string }) => i.type)).toEqual(['image', 'text', 'target']);
  });

  test('qa text and JSON; -j picks a field', async () => {
    const args = ['qa', '--query', 'Who likes pasta?', '--document', '@report.docx', '--document', '@notes.txt'];
    const text = await cli(args);
    expect(text.stdout).toBe(
      'Carla  (score 1.0000)\n  evidence: Carla likes pasta.\n\nDan  (score 0.5000)\n  evidence: Dan likes rice.\n\nAndreas  (score 0.5000)\n  evidence: Andreas likes pizza.\n\nBen  (score 0.5000)\n  evidence: Ben likes soup.\n',
    );
    const json = JSON.parse((await cli([...args, '-o', 'json'])).stdout);
    expect(alephAlphaQaResponseSchema.safeParse(json).success).toBe(true);
    const first = await cli([...args, '-j', 'answers[0].answer', '--raw-output']);
    expect(first.stdout).toBe('Carla\n');
  });

  test('qa without answers: nothing on stdout, a note on stderr (none with -q)', async () => {
    const r = await cli(['qa', '--query', 'Where is Rome?', '--document', 'Andreas likes pizza.']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('qa: the answer holds no results\n');
    expect((await cli(['-q', 'qa', '--query', 'Where is Rome?', '--document', 'Andreas likes pizza.'])).stderr).toBe(
      '',
    );
  });

  test('summarize text, YAML and JSONL', async () => {
    const args = ['summarize', '--document', 'Rivers carry water. They shape valleys. Fish live in them.'];
    expect((await cli(args)).stdout).toBe('Rivers carry water. They shape valleys.\n');
    expect((await cli([...args, '-o', 'yaml'])).stdout).toBe(
      'model_version: 2022-04\nsummary: Rivers carry water. They shape valleys.\n',
    );
    const line = (await cli([...args, '-o', 'jsonl'])).stdout;
    expect(line.split('\n')).toHaveLength(2);
    expect(alephAlphaSummarizationResponseSchema.safeParse(JSON.parse(line)).success).toBe(true);
  });
});

describe('other providers do not have these tasks', () => {
  const COMMANDS: Array<[string, string[]]> = [
    ['evaluate', ['evaluate', '--prompt', 'x', '--expected', 'y', '-m', 'm']],
    ['explain', ['explain', '--prompt', 'x', '--target', 'y', '-m', 'm']],
    ['qa', ['qa', '--query', 'x', '--document', 'y']],
    ['summarize', ['summarize', '--document', 'y']],
  ];
  const PROVIDERS: Array<[string, string]> = [
    ['wx', 'watsonx'],
    ['azure', 'azure-openai'],
    ['openai', 'openai'],
    ['oip', 'open-inference'],
  ];

  test.each(
    COMMANDS.flatMap(([name, args]) => PROVIDERS.map(([profile, kind]) => [name, kind, profile, args] as const)),
  )('%s on %s: exit 2 naming both, nothing sent', async (name, kind, profile, args) => {
    const r = await cli(['--profile', profile, ...args]);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `error: ${name} is not supported by ${kind}; it works with aleph-alpha\nhint: use a profile whose provider is aleph-alpha (e.g. --profile local-aa)\n`,
    );
    expect(server.requests).toHaveLength(0);
  });

  test('the provider is checked before files are read: a missing image does not hide it', async () => {
    const r = await cli(['--profile', 'wx', 'evaluate', '--image', '@missing.png', '--expected', 'y']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^error: evaluate is not supported by watsonx/);
  });
});

describe('--dry-run prints the request as curl and sends nothing', () => {
  test.each<[string, string[], RegExp]>([
    [
      'evaluate',
      ['evaluate', '--prompt', 'An apple', '--expected', ' a day', '--nice'],
      /\/evaluate\?nice=true' .*--data-raw '\{"model":"luminous-base","prompt":"An apple","completion_expected":" a day"\}'$/,
    ],
    [
      'explain',
      ['explain', '--prompt', 'An apple', '--target', ' a day', '--granularity', 'token'],
      /\/explain' .*"prompt_granularity":\{"type":"token"\}\}'$/,
    ],
    [
      'qa',
      ['qa', '--query', 'Who?', '--document', '@report.docx'],
      /\/qa' .*"documents":\[\{"docx":"UEsDB[^"]+"\}\]\}'$/,
    ],
    [
      'summarize',
      ['summarize', '--document', 'Some text.'],
      /\/summarize' .*--data-raw '\{"document":\{"text":"Some text\."\}\}'$/,
    ],
  ])('%s', async (_name, args, line) => {
    const r = await cli([...args, '--dry-run']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trimEnd()).toMatch(/^curl -sS -N -X POST 'http:\/\/127\.0\.0\.1:\d+/);
    expect(r.stdout.trimEnd()).toMatch(line);
    expect(server.requests).toHaveLength(0);
  });

  test('credentials stay a shell variable', async () => {
    const r = await runInProcess(
      ['--provider', 'aleph-alpha', '--url', secured.url, 'summarize', '--document', 'x', '--dry-run'],
      { env: { ...home.env, TEXTGEN_TOKEN: 'aa-token' } },
    );
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('authorization: Bearer ${TEXTGEN_TOKEN}');
    expect(r.stdout).not.toContain('aa-token');
  });
});

describe('usage errors: exit 2, nothing sent', () => {
  test.each<[string, string[], RegExp]>([
    ['evaluate without --expected', ['evaluate', '--prompt', 'x'], /^error: missing required option: --expected$/m],
    [
      'evaluate without any prompt',
      ['evaluate', '--expected', 'y'],
      /^error: missing required option: --prompt \(or --image, --prompt-json, or the prompt piped on stdin\)$/m,
    ],
    [
      'a model-less profile without -m',
      ['--profile', 'aa-bare', 'evaluate', '--prompt', 'x', '--expected', 'y'],
      /^error: missing required option: --model \(profile "aa-bare" has no defaults\.model\)$/m,
    ],
    [
      'an image that is not PNG or JPEG',
      ['evaluate', '--image', '@anim.gif', '--expected', 'y'],
      /^error: --image: anim\.gif is not a PNG or JPEG image$/m,
    ],
    [
      'a missing image',
      ['explain', '--image', '@nope.png', '--target', 'y'],
      /^error: --image: cannot read nope\.png: no such file$/m,
    ],
    [
      '--prompt-json with --prompt',
      ['evaluate', '--prompt-json', '@items.json', '--prompt', 'x', '--expected', 'y'],
      /cannot be combined with --prompt$/m,
    ],
    [
      'a bad --prompt-json item',
      ['explain', '--prompt-json', '[{"type":"text","data":1}]', '--target', 'y'],
      /^error: --prompt-json\[0\]\.data must be a string$/m,
    ],
    ['explain without --target', ['explain', '--prompt', 'x'], /^error: missing required option: --target$/m],
    [
      'explain with an empty --target',
      ['explain', '--prompt', 'x', '--target', ''],
      /^error: --target needs the text to explain$/m,
    ],
    [
      'an unknown granularity',
      ['explain', '--prompt', 'x', '--target', 'y', '--granularity', 'line'],
      /^error: --granularity must be one of token, word, sentence, paragraph, custom, got "line"$/m,
    ],
    [
      'custom granularity without a delimiter',
      ['explain', '--prompt', 'x', '--target', 'y', '--granularity', 'custom'],
      /^error: --granularity custom needs --delimiter/m,
    ],
    [
      'a delimiter with another granularity',
      ['explain', '--prompt', 'x', '--target', 'y', '--granularity', 'word', '--delimiter', '|'],
      /^error: --delimiter goes with --granularity custom, not word$/m,
    ],
    [
      'an unknown target granularity',
      ['explain', '--prompt', 'x', '--target', 'y', '--target-granularity', 'word'],
      /^error: --target-granularity must be one of complete, token, got "word"$/m,
    ],
    [
      'an unknown postprocessing',
      ['explain', '--prompt', 'x', '--target', 'y', '--postprocessing', 'cube'],
      /^error: --postprocessing must be one of none, absolute, square, got "cube"$/m,
    ],
    [
      '--normalize=maybe',
      ['explain', '--prompt', 'x', '--target', 'y', '--normalize=maybe'],
      /^error: --normalize must be true or false, got "maybe"$/m,
    ],
    [
      '--nice=often',
      ['summarize', '--document', 'x', '--nice=often'],
      /^error: --nice must be true or false, got "often"$/m,
    ],
    ['qa without --query and --document', ['qa'], /^error: missing required options: --query, --document$/m],
    [
      'qa with an empty --query',
      ['qa', '--query', ' ', '--document', 'x'],
      /^error: --query needs the question to answer$/m,
    ],
    [
      '--max-answers 0',
      ['qa', '--query', 'q', '--document', 'x', '--max-answers', '0'],
      /^error: --max-answers must be an integer from 1 to 200, got "0"$/m,
    ],
    [
      '--max-answers 201',
      ['qa', '--query', 'q', '--document', 'x', '--max-answers', '201'],
      /^error: --max-answers must be an integer from 1 to 200, got "201"$/m,
    ],
    [
      '--max-answers 2.5',
      ['qa', '--query', 'q', '--document', 'x', '--max-answers', '2.5'],
      /^error: --max-answers must be an integer from 1 to 200, got "2.5"$/m,
    ],
    ['an empty --document', ['qa', '--query', 'q', '--document', ''], /^error: --document: empty document$/m],
    [
      'a missing --document file',
      ['summarize', '--document', '@gone.txt'],
      /^error: --document: cannot read gone\.txt: no such file$/m,
    ],
    [
      'a binary --document',
      ['summarize', '--document', '@dot.png'],
      /^error: --document: dot\.png is not a text file$/m,
    ],
    [
      'two documents to summarize',
      ['summarize', '--document', 'a', '--document', 'b'],
      /^error: summarize takes one --document, got 2$/m,
    ],
    [
      'summarize with nothing to read',
      ['summarize'],
      /^error: missing required option: --document \(or the document piped on stdin\)$/m,
    ],
    [
      'a bad -o',
      ['summarize', '--document', 'x', '-o', 'xml'],
      /^error: --output must be one of text, json, jsonl, yaml/m,
    ],
  ])('%s', async (_name, args, message) => {
    const r = await cli(args);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
    expect(server.requests).toHaveLength(0);
  });
});

describe("the service's errors", () => {
  test("an unknown model: exit 4 with the provider's code and message", async () => {
    const r = await cli(['evaluate', '-m', 'luminous-nano', '--prompt', 'x', '--expected', 'y']);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(
      /^error: aleph-alpha returned HTTP 404 UNKNOWN_MODEL: Unknown model 'luminous-nano'.* \(trace [0-9a-f-]{36}\)$/m,
    );
  });

  test('a busy service is retried; after the retries, exit 4', async () => {
    server.faults.push({ kind: 'status', status: 503, retryAfterMs: 1 });
    const ok = await cli(['summarize', '--document', 'x.']);
    expect(ok.exitCode).toBe(0);
    expect(taskRequests()).toHaveLength(2);
    server.requests.length = 0;
    server.faults.push({ kind: 'status', status: 503, retryAfterMs: 1, times: 3 });
    const failed = await cli(['--retries', '1', 'summarize', '--document', 'x.']);
    expect(failed.exitCode).toBe(4);
    expect(failed.stderr).toMatch(/HTTP 503 QUEUE_FULL/);
  });

  test('a wrong token: exit 3; the right one: served', async () => {
    const args = [
      '--provider',
      'aleph-alpha',
      '--url',
      secured.url,
      'qa',
      '--query',
      'Who likes pizza?',
      '--document',
      'Andreas likes pizza.',
    ];
    const denied = await runInProcess(args, { env: { ...home.env, TEXTGEN_TOKEN: 'wrong' } });
    expect(denied.exitCode).toBe(3);
    expect(denied.stderr).toMatch(/^error: aleph-alpha returned HTTP 401 UNAUTHENTICATED/m);
    const served = await runInProcess(args, { env: { ...home.env, TEXTGEN_TOKEN: 'aa-token' } });
    expect(served.exitCode).toBe(0);
    expect(served.stdout).toMatch(/^Andreas {2}\(score 1\.0000\)/);
    expect(secured.requests.at(-1)?.headers.authorization).toBe('Bearer aa-token');
  });
});
