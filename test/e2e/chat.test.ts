/**
 * `textgen chat` through the built binary against one embedded server: the same command line on every provider
 * with chat (the exact wire requests, checked against the chat contract after each test by the server fixture, and
 * one canonical JSON shape), streamed output, mid-stream failures (exit 6, the partial text kept), the usage errors
 * (--messages validation, unsupported parameters, a provider without chat).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../src/emulator/core/index.js';
import { BIN, runBin } from '../helpers/run-cli.js';
import { useServer } from '../helpers/server-fixture.js';
import { chatRequests } from '../helpers/wire.js';

const fixture = useServer();
const { home } = fixture;
const CHAT_PROFILES = ['wx', 'azure', 'openai', 'aa'] as const;
const KIND = { wx: 'watsonx', azure: 'azure-openai', openai: 'openai', aa: 'aleph-alpha' } as const;

beforeAll(() => {
  const url = fixture.server.url;
  mkdirSync(join(home.dir, 'config', 'textgen'), { recursive: true });
  writeFileSync(
    join(home.dir, 'config', 'textgen', 'config.yaml'),
    [
      'profiles:',
      `  wx: { provider: watsonx, url: "${url}", space_id: sp-1 }`,
      // The completions version of the seed: chat must not use it.
      `  azure: { provider: azure-openai, url: "${url}", api_version: "2022-03-01-preview" }`,
      `  openai: { provider: openai, url: "${url}/v1" }`,
      `  aa: { provider: aleph-alpha, url: "${url}", chat: true }`,
      `  aaOld: { provider: aleph-alpha, url: "${url}" }`,
      `  oip: { provider: open-inference, url: "${url}" }`,
      '',
    ].join('\n'),
  );
});

const chat = (profile: string, args: string[], input?: string) =>
  runBin(['--profile', profile, 'chat', ...args], { env: home.env, ...(input !== undefined ? { input } : {}) });

// One command line for every provider; the model is one every local chat route serves.
const SAME = [
  '-m',
  'llama-3.1-8b-instruct',
  '--system',
  'Answer briefly.',
  '--max-tokens',
  '8',
  '-t',
  '0',
  '-n',
  '2',
  '--logprobs',
  '2',
  '--stop',
  'END',
  'Name a river.',
];
const MESSAGES = [
  { role: 'system', content: 'Answer briefly.' },
  { role: 'user', content: 'Name a river.' },
];

describe('one command line, four chat APIs', () => {
  it('sends each provider its own exact wire request, plain and streamed', async () => {
    for (const p of CHAT_PROFILES) {
      for (const stream of ['--no-stream', '--stream']) {
        const r = await chat(p, [...SAME, stream]);
        expect(r.exitCode, `${p} ${stream}: ${r.stderr}`).toBe(0);
      }
    }
    const sampling = { max_tokens: 8, temperature: 0, stop: ['END'], n: 2, logprobs: true, top_logprobs: 2 };
    const sent = chatRequests(fixture.server.requests).map((r) => ({
      path: r.path,
      query: r.query,
      accept: r.headers.accept,
      body: r.json,
    }));
    const usage = { stream: true, stream_options: { include_usage: true } };
    expect(sent).toEqual([
      {
        path: '/ml/v1/text/chat',
        query: { version: '2024-05-01' },
        accept: 'application/json',
        body: { model_id: 'llama-3.1-8b-instruct', space_id: 'sp-1', messages: MESSAGES, ...sampling },
      },
      {
        path: '/ml/v1/text/chat_stream',
        query: { version: '2024-05-01' },
        accept: 'text/event-stream',
        body: { model_id: 'llama-3.1-8b-instruct', space_id: 'sp-1', messages: MESSAGES, ...sampling },
      },
      {
        path: '/openai/deployments/llama-3.1-8b-instruct/chat/completions',
        query: { 'api-version': '2024-10-21' },
        accept: 'application/json',
        body: { messages: MESSAGES, ...sampling },
      },
      {
        path: '/openai/deployments/llama-3.1-8b-instruct/chat/completions',
        query: { 'api-version': '2024-10-21' },
        accept: 'text/event-stream',
        body: { messages: MESSAGES, ...sampling, ...usage },
      },
      {
        path: '/v1/chat/completions',
        query: {},
        accept: 'application/json',
        body: { model: 'llama-3.1-8b-instruct', messages: MESSAGES, ...sampling },
      },
      {
        path: '/v1/chat/completions',
        query: {},
        accept: 'text/event-stream',
        body: { model: 'llama-3.1-8b-instruct', messages: MESSAGES, ...sampling, ...usage },
      },
      {
        path: '/chat/completions',
        query: {},
        accept: 'application/json',
        body: { model: 'llama-3.1-8b-instruct', messages: MESSAGES, ...sampling },
      },
      {
        path: '/chat/completions',
        query: {},
        accept: 'text/event-stream',
        body: { model: 'llama-3.1-8b-instruct', messages: MESSAGES, ...sampling, ...usage },
      },
    ]);
  });

  it('prints one canonical JSON shape for every provider — and, greedy on the same engine, the same answer', async () => {
    const answers: Array<Record<string, unknown>> = [];
    for (const p of CHAT_PROFILES) {
      const r = await chat(p, [...SAME, '-o', 'json']);
      expect(r.exitCode, r.stderr).toBe(0);
      const body = JSON.parse(r.stdout) as Record<string, unknown> & { choices: Array<Record<string, unknown>> };
      expect(Object.keys(body), p).toEqual(['provider', 'id', 'model', 'created_at', 'choices', 'usage']);
      expect(body.provider).toBe(KIND[p]);
      expect(body.choices).toHaveLength(2);
      for (const c of body.choices) {
        expect(Object.keys(c)).toEqual(['index', 'message', 'finish_reason', 'logprobs']);
        expect((c.logprobs as Array<{ top_logprobs: unknown[] }>)[0]!.top_logprobs).toHaveLength(2);
      }
      answers.push(body);
    }
    const texts = answers.map((a) =>
      (a.choices as Array<{ message: { content: string } }>).map((c) => c.message.content),
    );
    for (const t of texts) expect(t).toEqual(texts[0]);
    for (const a of answers) expect(a.usage).toEqual(answers[0]!.usage);
  });

  it('streams the answer as text, and -o jsonl as one canonical chunk per line that adds up to the same answer', async () => {
    const whole = await chat('openai', ['-m', 'm', '--max-tokens', '10', '-t', '0', '--no-stream', 'Hi']);
    const lines = await chat('openai', ['-m', 'm', '--max-tokens', '10', '-t', '0', '--stream', '-o', 'jsonl', 'Hi']);
    expect(lines.exitCode).toBe(0);
    const chunks = lines.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { choices: Array<{ content: string; finish_reason?: string }>; usage?: unknown });
    expect(`${chunks.flatMap((c) => c.choices.map((x) => x.content)).join('')}\n`).toBe(whole.stdout);
    expect(chunks.some((c) => c.choices.some((x) => x.finish_reason === 'length'))).toBe(true);
    expect(chunks[chunks.length - 1]!.usage).toBeDefined();
  });

  it("--raw prints the provider's own body; -j queries the canonical result", async () => {
    const raw = await chat('wx', ['-m', 'm', '--max-tokens', '3', '--no-stream', '--raw', 'Hi']);
    expect(JSON.parse(raw.stdout)).toHaveProperty('model_id', 'm');
    const q = await runBin(
      [
        '--profile',
        'aa',
        'chat',
        '-m',
        'luminous-base',
        '--max-tokens',
        '3',
        '-j',
        'choices[0].finish_reason',
        '--raw-output',
        'Hi',
      ],
      { env: home.env },
    );
    expect(q.stdout).toBe('length\n');
  });

  it('reads the message from stdin, --message and --messages @file', async () => {
    const piped = await chat('openai', ['-m', 'm', '--max-tokens', '3'], 'From stdin\n');
    expect(piped.exitCode, piped.stderr).toBe(0);
    const file = join(home.dir, 'conversation.json');
    writeFileSync(
      file,
      JSON.stringify([
        { role: 'user', content: 'A' },
        { role: 'assistant', content: 'B' },
      ]),
    );
    const r = await chat('openai', ['-m', 'm', '--max-tokens', '3', '--messages', `@${file}`, '--message', 'user=C']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(chatRequests(fixture.server.requests).map((x) => (x.json as { messages: unknown }).messages)).toEqual([
      [{ role: 'user', content: 'From stdin' }],
      [
        { role: 'user', content: 'A' },
        { role: 'assistant', content: 'B' },
        { role: 'user', content: 'C' },
      ],
    ]);
  });
});

describe('a stream that breaks off', () => {
  it.each(CHAT_PROFILES)(
    '%s: an error event mid-answer is exit 6, with the text that came kept on stdout',
    async (p) => {
      fixture.server.faults.push({ kind: 'stream-error', afterEvents: 4 });
      const r = await chat(p, [
        '-m',
        'llama-3.1-8b-instruct',
        '--max-tokens',
        '30',
        '-t',
        '0',
        '--stream',
        'Tell me about rivers',
      ]);
      expect(r.exitCode, r.stderr).toBe(6);
      expect(r.stderr).toMatch(/stream broke off/);
      expect(r.stdout.trim().length).toBeGreaterThan(0);
      expect(r.stdout.endsWith('\n')).toBe(true);
    },
  );

  it('a stream that ends before the answer says it is finished is exit 6 too', async () => {
    fixture.server.faults.push({ kind: 'truncate', afterEvents: 3 });
    const r = await chat('wx', ['-m', 'm', '--max-tokens', '30', '--stream', '-o', 'json', 'Hi']);
    expect(r.exitCode).toBe(6);
    expect(JSON.parse(r.stdout).choices[0].finish_reason).toBe('error');
  });
});

describe('Ctrl-C', () => {
  it('stops the answer, keeps the text that came with a newline, and exits 130', async () => {
    const slow = await startServer({ requestLog: { max: 1000 }, tokenDelayMs: 50 });
    try {
      const child = execa(
        'node',
        [BIN, '--provider', 'openai', '--url', slow.url, 'chat', '-m', 'm', '--max-tokens', '300', '--stream', 'Hi'],
        {
          env: { ...home.env, CI: 'true' },
          reject: false,
          stdin: 'ignore',
          stripFinalNewline: false,
        },
      );
      let seen = '';
      await new Promise<void>((resolve) => {
        child.stdout?.on('data', (b: Buffer) => {
          seen += b.toString();
          if (seen.length > 10) resolve();
        });
      });
      child.kill('SIGINT');
      const r = await child;
      expect(r.exitCode).toBe(130);
      expect(r.stdout.startsWith(seen)).toBe(true);
      expect(r.stdout.endsWith('\n')).toBe(true);
      expect(r.stderr).not.toMatch(/at .*\.js/);
    } finally {
      await slow.close();
    }
  });
});

describe('usage errors, exit 2, one line', () => {
  const cases: Array<[string, string[], RegExp]> = [
    [
      'an unknown role',
      ['--messages', '[{"role":"robot","content":"x"}]'],
      /--messages\[0\]\.role must be one of system, user, assistant, got "robot"/,
    ],
    [
      // A tool message is a message now (issue 24), but only with the id of the call it answers.
      'a tool message without its call id',
      ['--messages', '[{"role":"tool","content":"x"}]'],
      /--messages\[0\]: a tool message is \{"role": "tool", "tool_call_id", "content"\} \(tool_call_id: missing/,
    ],
    [
      'an unknown field',
      ['--messages', '[{"role":"user","content":"x"},{"role":"user","content":"y","name":"me"}]'],
      /--messages\[1\]: unknown field "name"/,
    ],
    [
      'content that is not text',
      ['--messages', '[{"role":"user","content":5}]'],
      /--messages\[0\]\.content must be a string, got 5/,
    ],
    ['a missing field', ['--messages', '[{"role":"user"}]'], /--messages\[0\]: "content" is missing/],
    ['not an array', ['--messages', '{"role":"user","content":"x"}'], /--messages must be a JSON array/],
    ['bad JSON', ['--messages', '[{"role":'], /--messages: invalid JSON/],
    ['a bad --message', ['--message', 'robot=hi'], /--message takes ROLE=TEXT/],
    ['a parameter out of range', ['-t', '3', 'Hi'], /--temperature must be a number from 0 to 2, got 3/],
    ['an unknown --parameters field', ['--parameters', '{"top_k": 3}', 'Hi'], /unknown chat parameter "top_k"/],
    ['nothing to send', [], /nothing to send/],
  ];
  it.each(cases)('%s', async (_name, args, message) => {
    const r = await chat('openai', ['-m', 'm', ...args]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(fixture.server.requests).toHaveLength(0);
  });

  it('a parameter the provider does not carry; --ignore-unsupported drops it with a warning', async () => {
    const r = await chat('aa', ['-m', 'luminous-base', '--seed', '3', 'Hi']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/parameter seed is not supported by aleph-alpha chat/);
    const ok = await chat('aa', [
      '-m',
      'luminous-base',
      '--seed',
      '3',
      '--ignore-unsupported',
      '--max-tokens',
      '3',
      'Hi',
    ]);
    expect(ok.exitCode).toBe(0);
    expect(ok.stderr).toMatch(/ignoring seed/);
  });

  it('open-inference has no chat: exit 2, and the way to its OpenAI-compatible front end', async () => {
    const r = await chat('oip', ['-m', 'demo', 'Hi']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/open-inference has no chat API/);
    expect(r.stderr).toMatch(/hint: Triton and KServe .* provider openai/);
  });

  it('an Aleph Alpha profile without chat: true says so', async () => {
    const r = await chat('aaOld', ['-m', 'luminous-base', 'Hi']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/chat route/);
    expect(r.stderr).toMatch(/chat: true/);
  });

  it('--api-version reaches the Azure chat route', async () => {
    const r = await runBin(
      ['--profile', 'azure', '--api-version', '2024-06-01', 'chat', '-m', 'd', '--max-tokens', '2', 'Hi'],
      { env: home.env },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(chatRequests(fixture.server.requests)[0]!.query['api-version']).toBe('2024-06-01');
  });
});
