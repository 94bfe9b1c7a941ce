/**
 * Tools in `chat` through the built binary, against scripted servers that answer as each service does
 * (test/helpers/chat-fake.ts): the request each dialect gets (tools, tool_choice — watsonx's tool_choice_option or
 * tool_choice, never both — parallel_tool_calls), checked against the chat contracts; tool calls in the answer,
 * whole and streamed in pieces split across events, printed as one JSON line each or as the canonical result;
 * tool results in conversations (--tool-result, --save/--continue, --batch); the usage errors, exit 2, before
 * anything is sent.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  answer,
  type Call,
  expectValidChat,
  type FakeChatServer,
  type FakeReply,
  type FakeRequest,
  KINDS,
  type Kind,
  streamed,
  useChatFakes,
  wireCall,
} from '../helpers/chat-fake.js';
import { makeHome, runBin } from '../helpers/run-cli.js';

const fake = useChatFakes();
const home = makeHome();
const dir = mkdtempSync(join(tmpdir(), 'textgen-chat-tools-'));
afterAll(() => {
  home.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const WEATHER = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'The weather in a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
  { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: {} } } },
];
const TOOLS = JSON.stringify(WEATHER);

/** One config with a profile per dialect, all pointing at `url`. */
function profiles(url: string): void {
  mkdirSync(join(home.dir, 'config', 'textgen'), { recursive: true });
  writeFileSync(
    join(home.dir, 'config', 'textgen', 'config.yaml'),
    [
      'profiles:',
      `  watsonx: { provider: watsonx, url: "${url}", space_id: sp-1 }`,
      `  azure-openai: { provider: azure-openai, url: "${url}" }`,
      `  openai: { provider: openai, url: "${url}" }`,
      `  aleph-alpha: { provider: aleph-alpha, url: "${url}", chat: true }`,
      '',
    ].join('\n'),
  );
}

const cli = (kind: Kind, args: string[], opts: { input?: string; env?: Record<string, string> } = {}) =>
  runBin(['--profile', kind, '--retries', '0', 'chat', '-m', 'm', ...args], {
    env: { ...home.env, ...opts.env },
    cwd: dir,
    ...(opts.input !== undefined ? { input: opts.input } : {}),
  });

async function serve(_kind: Kind, script: FakeReply[] | ((req: FakeRequest, n: number) => FakeReply)) {
  const server = await fake(script);
  profiles(server.url);
  return server;
}

const body = (server: FakeChatServer, n = 0) => server.requests[n]!.json as Record<string, unknown>;

const CALL: Call = { id: 'call_1', name: 'get_weather', arguments: '{"city": "Lisbon"}' };
const CALL2: Call = { id: 'call_2', name: 'get_time', arguments: '{}' };

describe('tools on the wire and tool calls in the answer, per dialect', () => {
  for (const kind of KINDS) {
    it(`${kind}: --tools and --tool-choice NAME go out; each call is one JSON line on stdout, exit 0`, async () => {
      const server = await serve(kind, [answer(kind, null, [CALL, CALL2])]);
      const r = await cli(kind, [
        '--tools',
        TOOLS,
        '--tool-choice',
        'get_weather',
        '--no-stream',
        'Weather in Lisbon?',
      ]);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toBe(
        '{"id":"call_1","name":"get_weather","arguments":{"city":"Lisbon"}}\n{"id":"call_2","name":"get_time","arguments":{}}\n',
      );
      expect(r.stderr).toBe('');
      const sent = body(server);
      expect(sent.tools).toEqual(WEATHER);
      expect(sent.tool_choice).toEqual({ type: 'function', function: { name: 'get_weather' } });
      expect(sent).not.toHaveProperty('tool_choice_option');
      expectValidChat(kind, server.requests);
    });

    it(`${kind}: -o json is the canonical result with message.tool_calls and finish_reason tool_calls`, async () => {
      const server = await serve(kind, [answer(kind, null, [CALL])]);
      const r = await cli(kind, ['--tools', TOOLS, '-o', 'json', '--no-stream', 'Weather?']);
      expect(r.exitCode, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout);
      expect(out.provider).toBe(kind);
      expect(out.choices).toEqual([
        {
          index: 0,
          message: { role: 'assistant', content: '', tool_calls: [wireCall(CALL)] },
          finish_reason: 'tool_calls',
        },
      ]);
      expectValidChat(kind, server.requests);
    });

    it(`${kind}: streamed calls, split across events, are assembled before they are printed`, async () => {
      const server = await serve(kind, [streamed(kind, [CALL, CALL2])]);
      const r = await cli(kind, ['--tools', TOOLS, '--stream', 'Weather?']);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toBe(
        '{"id":"call_1","name":"get_weather","arguments":{"city":"Lisbon"}}\n{"id":"call_2","name":"get_time","arguments":{}}\n',
      );
      expect(server.requests[0]!.path).toMatch(kind === 'watsonx' ? /chat_stream$/ : /chat\/completions$/);
      expectValidChat(kind, server.requests);
    });

    it(`${kind}: -o jsonl streams chunks that carry the tool-call deltas`, async () => {
      await serve(kind, [streamed(kind, [CALL])]);
      const r = await cli(kind, ['--tools', TOOLS, '--stream', '-o', 'jsonl', 'Weather?']);
      expect(r.exitCode, r.stderr).toBe(0);
      const chunks = r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const deltas = chunks.flatMap((c) => c.choices.flatMap((ch: { tool_calls?: unknown[] }) => ch.tool_calls ?? []));
      expect(deltas[0]).toEqual({ index: 0, id: 'call_1', name: 'get_weather' });
      expect(deltas.map((d: { arguments?: string }) => d.arguments ?? '').join('')).toBe(CALL.arguments);
    });
  }
});

describe('--tool-choice per dialect', () => {
  it('watsonx takes a word in tool_choice_option and a name in tool_choice, never both', async () => {
    for (const [choice, expected] of [
      ['auto', { tool_choice_option: 'auto' }],
      ['none', { tool_choice_option: 'none' }],
      ['required', { tool_choice_option: 'required' }],
      ['get_time', { tool_choice: { type: 'function', function: { name: 'get_time' } } }],
    ] as const) {
      const server = await serve('watsonx', [answer('watsonx', 'ok')]);
      const r = await cli('watsonx', ['--tools', TOOLS, '--tool-choice', choice, 'Hi']);
      expect(r.exitCode, r.stderr).toBe(0);
      const sent = body(server);
      const both: Record<string, unknown> = { tool_choice_option: undefined, tool_choice: undefined };
      expect({ tool_choice_option: sent.tool_choice_option, tool_choice: sent.tool_choice }).toEqual({
        ...both,
        ...expected,
      });
      expectValidChat('watsonx', server.requests);
    }
  });

  it('a watsonx deployment chat carries tools and the choice too', async () => {
    const server = await serve('watsonx', [answer('watsonx', null, [CALL])]);
    const r = await runBin(
      ['--profile', 'watsonx', 'chat', '--id-or-name', 'dep-1', '--tools', TOOLS, '--tool-choice', 'required', 'Hi'],
      { env: home.env, cwd: dir },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(server.requests[0]!.path).toBe('/ml/v1/deployments/dep-1/text/chat');
    expect(body(server).tool_choice_option).toBe('required');
    expect(r.stdout).toContain('"name":"get_weather"');
    expectValidChat('watsonx', server.requests);
  });

  for (const kind of ['openai', 'azure-openai', 'aleph-alpha'] as const) {
    it(`${kind} takes the word as tool_choice`, async () => {
      const server = await serve(kind, [answer(kind, 'ok')]);
      const r = await cli(kind, ['--tools', TOOLS, '--tool-choice', 'required', 'Hi']);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(body(server).tool_choice).toBe('required');
      expectValidChat(kind, server.requests);
    });
  }

  it('--no-parallel-tool-calls reaches OpenAI and Azure; watsonx and Aleph Alpha refuse it, naming themselves', async () => {
    for (const kind of ['openai', 'azure-openai'] as const) {
      const server = await serve(kind, [answer(kind, 'ok')]);
      const r = await cli(kind, ['--tools', TOOLS, '--no-parallel-tool-calls', 'Hi']);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(body(server).parallel_tool_calls).toBe(false);
      expectValidChat(kind, server.requests);
    }
    for (const kind of ['watsonx', 'aleph-alpha'] as const) {
      const server = await serve(kind, [answer(kind, 'ok')]);
      const r = await cli(kind, ['--tools', TOOLS, '--parallel-tool-calls', 'Hi']);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`^error: --parallel-tool-calls is not supported by ${kind} chat\\n`));
      expect(server.requests).toHaveLength(0);
      const dropped = await cli(kind, ['--tools', TOOLS, '--parallel-tool-calls', '--ignore-unsupported', 'Hi']);
      expect(dropped.exitCode, dropped.stderr).toBe(0);
      expect(dropped.stderr).toMatch(/warning: ignoring --parallel-tool-calls/);
      expect(body(server)).not.toHaveProperty('parallel_tool_calls');
    }
  });
});

describe('answers with text and calls, odd arguments', () => {
  it('text before the calls is printed, then each call on its own line', async () => {
    await serve('openai', [answer('openai', 'Let me look.', [CALL])]);
    const r = await cli('openai', ['--tools', TOOLS, 'Weather?']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('Let me look.\n{"id":"call_1","name":"get_weather","arguments":{"city":"Lisbon"}}\n');
  });

  it('arguments that are not JSON are kept as a string, with a warning on stderr', async () => {
    await serve('openai', [answer('openai', null, [{ ...CALL, arguments: '{"city": Lisb' }])]);
    const r = await cli('openai', ['--tools', TOOLS, 'Weather?']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ id: 'call_1', name: 'get_weather', arguments: '{"city": Lisb' });
    expect(r.stderr).toMatch(/warning: the arguments of tool call call_1 \(get_weather\) are not JSON/);
  });

  it('a server that says "stop" on an answer of tool calls still gives finish_reason tool_calls', async () => {
    const reply = answer('openai', null, [CALL]) as { json: { choices: Array<{ finish_reason: string }> } };
    reply.json.choices[0]!.finish_reason = 'stop';
    await serve('openai', [reply]);
    const r = await cli('openai', ['--tools', TOOLS, '-o', 'json', 'Weather?']);
    expect(JSON.parse(r.stdout).choices[0].finish_reason).toBe('tool_calls');
  });
});

describe('usage errors before anything is sent (exit 2, one line)', () => {
  const cases: Array<[string, string[], RegExp]> = [
    ['--tools not an array', ['--tools', '{"type":"function"}'], /^error: --tools must be a JSON array/],
    [
      'a bad function name',
      ['--tools', '[{"type":"function","function":{"name":"get weather"}}]'],
      /^error: --tools\[0\]\.function\.name must be 1 to 64 letters, digits, "_" or "-", got "get weather"/,
    ],
    [
      'a name twice',
      ['--tools', '[{"type":"function","function":{"name":"a"}},{"type":"function","function":{"name":"a"}}]'],
      /^error: --tools\[1\]\.function\.name: "a" is given twice/,
    ],
    [
      'parameters that are not a JSON Schema',
      ['--tools', '[{"type":"function","function":{"name":"a","parameters":{"type":"strin"}}}]'],
      /^error: --tools\[0\]\.function\.parameters is not a valid JSON Schema at \/type: /,
    ],
    ['a type other than function', ['--tools', '[{"type":"code","function":{"name":"a"}}]'], /type must be "function"/],
    ['an unknown tool choice', ['--tools', TOOLS, '--tool-choice', 'get_tide'], /--tool-choice must be auto, none/],
    ['a tool choice without tools', ['--tool-choice', 'required'], /--tool-choice required needs tools/],
    ['--run-tool for no tool', ['--tools', TOOLS, '--run-tool', 'get_tide=node x.js'], /--run-tool get_tide: no tool/],
    [
      '--run-tool without a terminal and without --yes',
      ['--tools', TOOLS, '--run-tool', 'get_weather=node x.js'],
      /^error: --run-tool runs commands the model asks for; without a terminal to confirm each run, give --yes/,
    ],
    ['a tool file that is not there', ['--tools', '@missing.json'], /--tools/],
  ];
  for (const [name, args, message] of cases) {
    it(name, async () => {
      const server = await serve('openai', [answer('openai', 'never')]);
      const r = await cli('openai', [...args, 'Hi']);
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(r.stdout).toBe('');
      expect(server.requests).toHaveLength(0);
    });
  }
});

describe('tool results in conversations', () => {
  it('--save keeps the assistant tool calls; --continue with --tool-result sends the tool message and appends', async () => {
    const server = await serve('openai', [answer('openai', null, [CALL]), answer('openai', 'Sunny, 24 °C.')]);
    const first = await cli('openai', ['--tools', TOOLS, '--save', 'weather.jsonl', 'Weather in Lisbon?']);
    expect(first.exitCode, first.stderr).toBe(0);
    const file = join(dir, 'weather.jsonl');
    const saved = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(saved).toEqual([
      { role: 'user', content: 'Weather in Lisbon?' },
      { role: 'assistant', content: '', tool_calls: [wireCall(CALL)] },
    ]);

    const wrong = await cli('openai', ['--tools', TOOLS, '--continue', 'weather.jsonl', '--tool-result', 'call_9=x']);
    expect(wrong.exitCode).toBe(2);
    expect(wrong.stderr).toMatch(
      /the tool result for "call_9" answers no call of the last assistant turn \(its calls: call_1\)/,
    );

    writeFileSync(join(dir, 'result.json'), '{"temp": 24, "sky": "sunny"}');
    const second = await cli('openai', [
      '--tools',
      TOOLS,
      '--continue',
      'weather.jsonl',
      '--tool-result',
      'call_1=@result.json',
    ]);
    expect(second.exitCode, second.stderr).toBe(0);
    expect(second.stdout).toBe('Sunny, 24 °C.\n');
    expect(body(server, 1).messages).toEqual([
      { role: 'user', content: 'Weather in Lisbon?' },
      { role: 'assistant', tool_calls: [wireCall(CALL)] },
      { role: 'tool', tool_call_id: 'call_1', content: '{"temp": 24, "sky": "sunny"}' },
    ]);
    const after = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(after.slice(2)).toEqual([
      { role: 'tool', tool_call_id: 'call_1', content: '{"temp": 24, "sky": "sunny"}' },
      { role: 'assistant', content: 'Sunny, 24 °C.' },
    ]);
    expectValidChat('openai', server.requests);
  });

  it('a file saved before tools ({"role", "content"} lines) still continues', async () => {
    writeFileSync(join(dir, 'old.jsonl'), '{"role":"user","content":"Hi"}\n{"role":"assistant","content":"Hello."}\n');
    const server = await serve('aleph-alpha', [answer('aleph-alpha', 'Fine.')]);
    const r = await cli('aleph-alpha', ['--continue', 'old.jsonl', 'How are you?']);
    expect(r.exitCode, r.stderr).toBe(0);
    expectValidChat('aleph-alpha', server.requests);
  });

  it('--messages takes OpenAI-shaped tool turns, for watsonx and Aleph Alpha alike', async () => {
    const messages = JSON.stringify([
      { role: 'user', content: 'Weather?' },
      { role: 'assistant', content: null, tool_calls: [wireCall(CALL)] },
      { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
    ]);
    for (const kind of ['watsonx', 'aleph-alpha'] as const) {
      const server = await serve(kind, [answer(kind, 'It is sunny.')]);
      const r = await cli(kind, ['--tools', TOOLS, '--messages', messages]);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toBe('It is sunny.\n');
      expect((body(server).messages as unknown[])[2]).toEqual({
        role: 'tool',
        tool_call_id: 'call_1',
        content: 'sunny',
      });
      expectValidChat(kind, server.requests);
    }
  });

  it('--batch lines carry tools and tool_choice; their records carry the calls', async () => {
    const server = await serve('openai', (req) =>
      (req.json as { tools?: unknown }).tools ? answer('openai', null, [CALL]) : answer('openai', 'plain'),
    );
    const lines = [
      JSON.stringify({
        id: 'a',
        messages: [{ role: 'user', content: 'Weather?' }],
        tools: WEATHER,
        tool_choice: 'required',
      }),
      JSON.stringify({ id: 'b', messages: [{ role: 'user', content: 'Hi' }] }),
      JSON.stringify({ id: 'c', messages: [{ role: 'user', content: 'x' }], tool_choice: 'get_tide' }),
    ].join('\n');
    const r = await cli('openai', ['--batch', '-', '--concurrency', '1'], { input: `${lines}\n` });
    const records = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(records).toHaveLength(3);
    expect(records[0].result.choices[0].message.tool_calls).toEqual([wireCall(CALL)]);
    expect(records[0].result.choices[0].finish_reason).toBe('tool_calls');
    expect(records[1].result.choices[0].message.content).toBe('plain');
    expect(records[2].error.message).toMatch(/"tool_choice" names a tool, but no --tools were given|tool_choice/);
    const sent = server.requests.map((q) => q.json as Record<string, unknown>);
    expect(sent[0]!.tool_choice).toBe('required');
    expect(sent[0]!.tools).toEqual(WEATHER);
    expect(sent[1]).not.toHaveProperty('tools');
    expectValidChat('openai', server.requests);
  });
});
