/**
 * The request diff: for the same logical call, what OpenAI's SDK sends and what `textgen` sends, both captured on the
 * same local socket (`serve` with --require-auth, which records every request as it arrived: method, path, query,
 * headers, body). They must agree, apart from the short list of deliberate differences below — each with its reason,
 * the same list as docs/sdk-fidelity-openai.md. A difference that is not on the list, or one on the list that is
 * gone, fails the test: the list stays true.
 */
import OpenAI, { AzureOpenAI } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RecordedRequest, type RunningServer } from '../../src/emulator/core/index.js';
import { makeHome, runInProcess } from '../helpers/run-cli.js';

const KEY = 'request-diff-key-0123456789';
const API_VERSION = '2024-10-21';
const MODEL = 'gpt-3.5-turbo-instruct';
const DEPLOYMENT = 'gpt-35-turbo-instruct';
const EMBEDDING = 'text-embedding-3-small';
const PROMPT = 'Write a haiku about rivers';

let server: RunningServer;
const home = makeHome();
beforeAll(async () => {
  server = await startServer({ requestLog: { max: 1000 }, requireAuth: true, apiKeys: [KEY] });
});
afterAll(async () => {
  await server.close();
  home.cleanup();
});

/** Set by the connection, not by the client: the port, keep-alive, the byte count of a body compared as JSON. */
const TRANSPORT = new Set(['host', 'connection', 'content-length']);

/**
 * The deliberate differences, by what differs. Every key a diff can produce that is allowed somewhere is here, with
 * the reason it is kept (docs/sdk-fidelity-openai.md says the same).
 */
const DELIBERATE: Record<string, string> = {
  'header user-agent':
    'each client names itself: `OpenAI/JS <v>` / `AzureOpenAI/JS <v>` against `textgen/<v> (node/<v>; <platform>-<arch>)`',
  'header x-stainless-*':
    "the SDK's own telemetry (language, OS, architecture, runtime, retry count); not part of the protocol",
  'header accept-language':
    "sent by the fetch implementation the SDK uses (undici's fetch), not by the SDK; textgen uses undici's request, which adds nothing",
  'header sec-fetch-mode':
    "sent by the fetch implementation the SDK uses, a browser notion; textgen's undici request adds nothing",
  'header accept-encoding':
    'fetch asks for gzip/deflate and decompresses; textgen asks for no compression (answers are small JSON or a stream read as it comes)',
  'header accept':
    'on a stream the SDK still sends `accept: application/json`; textgen says what it wants, `text/event-stream`',
  'body model':
    'to Azure the SDK also sends the deployment as `model` in the body (Azure ignores it: the deployment in the path picks the model); textgen sends only what Azure reads',
  'body encoding_format':
    'the SDK asks for base64 vectors and decodes them; textgen asks for the default, floats (not every OpenAI-compatible server knows the field), and decodes base64 when a server sends it anyway',
  path: 'Azure `models`: the SDK lists the models the resource can deploy (GET /openai/models); textgen lists the deployments, the names --id-or-name takes (GET /openai/deployments)',
  'query api-version':
    'Azure `models`: the deployments listing exists only in data-plane versions up to 2023-03-15-preview, so textgen asks it with the last GA one that has it (2022-12-01)',
};

interface Seen {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: unknown;
}

function seen(r: RecordedRequest): Seen {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(r.headers)) if (!TRANSPORT.has(name)) headers[name] = value;
  return {
    method: r.method,
    path: r.path,
    query: r.query,
    headers,
    body: r.body === '' ? undefined : JSON.parse(r.body),
  };
}

/** What differs between two requests, one key per difference (header names grouped as DELIBERATE names them). */
function differences(sdk: Seen, textgen: Seen): string[] {
  const out = new Set<string>();
  if (sdk.method !== textgen.method) out.add('method');
  if (sdk.path !== textgen.path) out.add('path');
  for (const k of new Set([...Object.keys(sdk.query), ...Object.keys(textgen.query)]))
    if (sdk.query[k] !== textgen.query[k]) out.add(`query ${k}`);
  for (const k of new Set([...Object.keys(sdk.headers), ...Object.keys(textgen.headers)])) {
    if (sdk.headers[k] !== textgen.headers[k])
      out.add(k.startsWith('x-stainless-') ? 'header x-stainless-*' : `header ${k}`);
  }
  const a = (sdk.body ?? {}) as Record<string, unknown>;
  const b = (textgen.body ?? {}) as Record<string, unknown>;
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)]))
    if (JSON.stringify(a[k]) !== JSON.stringify(b[k])) out.add(`body ${k}`);
  return [...out].sort();
}

/** The one request `act` made (after clearing the log). */
async function capture(act: () => Promise<unknown>): Promise<Seen> {
  server.requests.length = 0;
  await act();
  expect(server.requests, server.requests.map((r) => `${r.method} ${r.path}`).join(', ')).toHaveLength(1);
  return seen(server.requests[0]!);
}

const openai = () => new OpenAI({ apiKey: KEY, baseURL: `${server.url}/v1`, maxRetries: 0 });
/** Azure's v1 API as Microsoft documents it for this SDK: the OpenAI client on `{endpoint}/openai/v1/`. */
const azureV1 = () => new OpenAI({ apiKey: KEY, baseURL: `${server.url}/openai/v1/`, maxRetries: 0 });
const azure = (bearer: boolean) =>
  bearer
    ? new AzureOpenAI({
        azureADTokenProvider: async () => KEY,
        endpoint: server.url,
        apiVersion: API_VERSION,
        maxRetries: 0,
      })
    : new AzureOpenAI({ apiKey: KEY, endpoint: server.url, apiVersion: API_VERSION, maxRetries: 0 });

async function textgen(args: string[], input?: string): Promise<void> {
  const r = await runInProcess(['--url', server.url, '--retries', '0', ...args], {
    env: home.env,
    ...(input !== undefined ? { input } : {}),
  });
  expect(r.exitCode, r.stderr).toBe(0);
}

const SAMPLING = {
  max_tokens: 20,
  temperature: 0.7,
  top_p: 0.9,
  stop: ['\n\n', 'END'],
  logprobs: 3,
  echo: true,
  seed: 7,
};
const COMPLETE_FLAGS = [
  '--max-tokens',
  '20',
  '-t',
  '0.7',
  '--top-p',
  '0.9',
  '--stop',
  '\n\n',
  '--stop',
  'END',
  '--logprobs',
  '3',
  '--echo',
  '--seed',
  '7',
];
const TEXT_GENERATE_FLAGS = [
  '--parameters-max-new-tokens',
  '20',
  '--parameters-temperature',
  '0.7',
  '--parameters-top-p',
  '0.9',
  '--parameters-stop-sequences',
  '["\\n\\n","END"]',
  '--parameters-return-options',
  '{"input_text":true,"top_n_tokens":3}',
  '--parameters-random-seed',
  '7',
];

async function drain(stream: AsyncIterable<unknown>): Promise<void> {
  for await (const chunk of stream) void chunk;
}

interface Case {
  name: string;
  sdk: () => Promise<unknown>;
  textgen: string[];
  /** stdin for textgen (several texts to embed, one per line). */
  input?: string;
  /** The deliberate differences this call shows, each a key of DELIBERATE. */
  expected: string[];
}

const HEADERS_ALWAYS = [
  'header accept-encoding',
  'header accept-language',
  'header sec-fetch-mode',
  'header user-agent',
  'header x-stainless-*',
];

const CASES: Case[] = [
  {
    name: 'OpenAI completions',
    sdk: () => openai().completions.create({ model: MODEL, prompt: PROMPT, ...SAMPLING, n: 2 }),
    textgen: [
      '--provider',
      'openai',
      '--token',
      KEY,
      'complete',
      '-m',
      MODEL,
      ...COMPLETE_FLAGS,
      '-n',
      '2',
      '--no-stream',
      PROMPT,
    ],
    expected: HEADERS_ALWAYS,
  },
  {
    name: 'OpenAI completions, streamed',
    sdk: async () =>
      drain(await openai().completions.create({ model: MODEL, prompt: PROMPT, ...SAMPLING, n: 2, stream: true })),
    textgen: [
      '--provider',
      'openai',
      '--token',
      KEY,
      'complete',
      '-m',
      MODEL,
      ...COMPLETE_FLAGS,
      '-n',
      '2',
      '--stream',
      PROMPT,
    ],
    expected: [...HEADERS_ALWAYS, 'header accept'],
  },
  {
    name: 'Azure completions (api-key)',
    sdk: () => azure(false).completions.create({ model: DEPLOYMENT, prompt: PROMPT, ...SAMPLING }),
    textgen: [
      '--provider',
      'azure-openai',
      '--api-key',
      KEY,
      '--api-version',
      API_VERSION,
      'deployment',
      'text-generate',
      '--id-or-name',
      DEPLOYMENT,
      '--input',
      PROMPT,
      ...TEXT_GENERATE_FLAGS,
    ],
    expected: [...HEADERS_ALWAYS, 'body model'],
  },
  {
    name: 'Azure completions, streamed (bearer)',
    sdk: async () =>
      drain(await azure(true).completions.create({ model: DEPLOYMENT, prompt: PROMPT, ...SAMPLING, stream: true })),
    textgen: [
      '--provider',
      'azure-openai',
      '--token',
      KEY,
      '--api-version',
      API_VERSION,
      'deployment',
      'text-generate-stream',
      '--id-or-name',
      DEPLOYMENT,
      '--input',
      PROMPT,
      ...TEXT_GENERATE_FLAGS,
    ],
    expected: [...HEADERS_ALWAYS, 'header accept', 'body model'],
  },
  {
    name: 'OpenAI embeddings',
    sdk: () => openai().embeddings.create({ model: EMBEDDING, input: ['Rivers carry water.', 'Bridges cross them.'] }),
    textgen: ['--provider', 'openai', '--token', KEY, 'embed', '-m', EMBEDDING, '--input-file', '-'],
    input: 'Rivers carry water.\nBridges cross them.\n',
    expected: [...HEADERS_ALWAYS, 'body encoding_format'],
  },
  {
    name: 'Azure embeddings (api-key)',
    sdk: () => azure(false).embeddings.create({ model: EMBEDDING, input: ['Rivers carry water.'] }),
    textgen: [
      '--provider',
      'azure-openai',
      '--api-key',
      KEY,
      '--api-version',
      API_VERSION,
      'embed',
      '-m',
      EMBEDDING,
      'Rivers carry water.',
    ],
    expected: [...HEADERS_ALWAYS, 'body encoding_format', 'body model'],
  },
  {
    name: 'OpenAI models',
    sdk: async () => drain(openai().models.list()),
    textgen: ['--provider', 'openai', '--token', KEY, 'models'],
    expected: HEADERS_ALWAYS,
  },
  {
    name: 'Azure models (api-key)',
    sdk: async () => drain(azure(false).models.list()),
    textgen: ['--provider', 'azure-openai', '--api-key', KEY, '--api-version', API_VERSION, 'models'],
    expected: [...HEADERS_ALWAYS, 'path', 'query api-version'],
  },
];

/** One chat turn, as the Responses API takes it and as `chat` flags say it. */
const RESPONSES_INPUT = {
  input: [
    { role: 'system' as const, content: 'Answer briefly.' },
    { role: 'user' as const, content: PROMPT },
  ],
  max_output_tokens: 20,
  temperature: 0.7,
  top_p: 0.9,
  // textgen keeps the conversation itself, so it asks the service to keep nothing.
  store: false,
};
const CHAT_FLAGS = ['--system', 'Answer briefly.', '--max-tokens', '20', '-t', '0.7', '--top-p', '0.9'];

CASES.push(
  {
    name: 'OpenAI responses',
    sdk: () => openai().responses.create({ model: MODEL, ...RESPONSES_INPUT }),
    textgen: [
      '--provider',
      'openai',
      '--token',
      KEY,
      'chat',
      '--api',
      'responses',
      '-m',
      MODEL,
      ...CHAT_FLAGS,
      '--no-stream',
      PROMPT,
    ],
    expected: HEADERS_ALWAYS,
  },
  {
    name: 'OpenAI responses, streamed',
    sdk: async () => drain(await openai().responses.create({ model: MODEL, ...RESPONSES_INPUT, stream: true })),
    textgen: [
      '--provider',
      'openai',
      '--token',
      KEY,
      'chat',
      '--api',
      'responses',
      '-m',
      MODEL,
      ...CHAT_FLAGS,
      '--stream',
      PROMPT,
    ],
    expected: [...HEADERS_ALWAYS, 'header accept'],
  },
  {
    name: 'Azure v1 responses (bearer)',
    sdk: () => azureV1().responses.create({ model: DEPLOYMENT, ...RESPONSES_INPUT }),
    textgen: [
      '--provider',
      'azure-openai',
      '--token',
      KEY,
      'chat',
      '--api',
      'responses',
      '-m',
      DEPLOYMENT,
      ...CHAT_FLAGS,
      '--no-stream',
      PROMPT,
    ],
    expected: HEADERS_ALWAYS,
  },
  {
    name: 'Azure v1 chat completions (bearer)',
    sdk: () =>
      azureV1().chat.completions.create({
        model: DEPLOYMENT,
        messages: RESPONSES_INPUT.input,
        max_tokens: 20,
        temperature: 0.7,
        top_p: 0.9,
      }),
    textgen: [
      '--provider',
      'azure-openai',
      '--token',
      KEY,
      '--api-version',
      'v1',
      'chat',
      '-m',
      DEPLOYMENT,
      ...CHAT_FLAGS,
      '--no-stream',
      PROMPT,
    ],
    expected: HEADERS_ALWAYS,
  },
  {
    name: 'Azure v1 embeddings (bearer)',
    sdk: () => azureV1().embeddings.create({ model: EMBEDDING, input: ['Rivers carry water.'] }),
    textgen: [
      '--provider',
      'azure-openai',
      '--token',
      KEY,
      '--api-version',
      'v1',
      'embed',
      '-m',
      EMBEDDING,
      'Rivers carry water.',
    ],
    expected: [...HEADERS_ALWAYS, 'body encoding_format'],
  },
);

describe('what the SDK sends and what textgen sends agree, apart from the deliberate differences', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_, c) => {
    const sdk = await capture(c.sdk);
    const ours = await capture(() => textgen(c.textgen, c.input));
    const found = differences(sdk, ours);
    for (const d of found)
      expect(
        DELIBERATE[d],
        `${d} is not a deliberate difference: SDK ${JSON.stringify(sdk)} textgen ${JSON.stringify(ours)}`,
      ).toBeDefined();
    expect(found, `SDK ${JSON.stringify(sdk)}\ntextgen ${JSON.stringify(ours)}`).toEqual([...c.expected].sort());
    expect(ours.headers['user-agent']).toMatch(/^textgen\/\d+\.\d+\.\d+ \(node\/\d+\.\d+\.\d+; \w+-\w+\)$/);
    expect(sdk.headers['user-agent']).toMatch(/^(Azure)?OpenAI\/JS \d/);
    // Credentials travel the same way: the same header, the same value.
    for (const auth of ['authorization', 'api-key']) expect(ours.headers[auth], auth).toBe(sdk.headers[auth]);
  });

  it('every deliberate difference is shown by some call (the list keeps no stale entry)', () => {
    const shown = new Set(CASES.flatMap((c) => c.expected));
    expect(Object.keys(DELIBERATE).filter((d) => !shown.has(d))).toEqual([]);
  });
});
