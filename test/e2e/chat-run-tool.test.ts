/**
 * `chat --run-tool NAME=COMMAND` through the built binary against a scripted server: the command gets the call's
 * arguments as JSON on stdin, its stdout (bounded) goes back as the tool message and the conversation continues;
 * a failing, missing or slow command becomes a result that says so; --max-tool-rounds bounds the loop (exit 4);
 * a call of a tool without --run-tool ends the loop and is printed. Nothing runs without --yes when nothing can ask.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  answer,
  type Call,
  expectValidChat,
  type FakeReply,
  streamed,
  useChatFakes,
  wireCall,
} from '../helpers/chat-fake.js';
import { makeHome, runBin } from '../helpers/run-cli.js';

const fake = useChatFakes();
const home = makeHome();
const dir = mkdtempSync(join(tmpdir(), 'textgen-run-tool-'));
afterAll(() => {
  home.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const TOOLS = JSON.stringify([
  {
    type: 'function',
    function: {
      name: 'get_weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
  { type: 'function', function: { name: 'get_time' } },
]);

// The tools: small node scripts in the test's directory.
writeFileSync(
  join(dir, 'weather.mjs'),
  [
    "let text = '';",
    "process.stdin.on('data', (c) => (text += c));",
    "process.stdin.on('end', () => {",
    '  const args = JSON.parse(text);',
    '  process.stdout.write(JSON.stringify({ city: args.city, temp: 24, argv: process.argv.slice(2) }));',
    '});',
  ].join('\n'),
);
writeFileSync(join(dir, 'big.mjs'), "process.stdout.write('x'.repeat(100 * 1024));\n");
writeFileSync(join(dir, 'fail.mjs'), "process.stderr.write('no such city'); process.exit(3);\n");
writeFileSync(join(dir, 'hang.mjs'), 'setInterval(() => {}, 1000);\n');

const CALL: Call = { id: 'call_1', name: 'get_weather', arguments: '{"city":"Lisbon"}' };

async function serve(script: FakeReply[]) {
  const server = await fake(script);
  return server;
}

const cli = (url: string, args: string[]) =>
  runBin(['--provider', 'openai', '--url', url, '--retries', '0', 'chat', '-m', 'm', '--tools', TOOLS, ...args], {
    env: home.env,
    cwd: dir,
  });

const toolMessage = (server: { requests: Array<{ json: unknown }> }, n: number) =>
  ((server.requests[n]!.json as { messages: Array<Record<string, unknown>> }).messages ?? []).filter(
    (m) => m.role === 'tool',
  );

describe('--run-tool', () => {
  it('runs the command with the arguments on stdin, sends its stdout back, and prints the last answer', async () => {
    const server = await serve([answer('openai', null, [CALL]), answer('openai', 'It is 24 °C in Lisbon.')]);
    const r = await cli(server.url, ['--run-tool', 'get_weather=node weather.mjs a\\ b', '--yes', 'Weather?']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('It is 24 °C in Lisbon.\n');
    expect(r.stderr).toMatch(/running tool get_weather: node weather\.mjs a b/);
    expect(server.requests).toHaveLength(2);
    const second = (server.requests[1]!.json as { messages: unknown[] }).messages;
    expect(second).toEqual([
      { role: 'user', content: 'Weather?' },
      { role: 'assistant', tool_calls: [wireCall(CALL)] },
      { role: 'tool', tool_call_id: 'call_1', content: '{"city":"Lisbon","temp":24,"argv":["a b"]}' },
    ]);
    expectValidChat('openai', server.requests);
  });

  it('assembles streamed calls before running them; -o json prints only the last answer', async () => {
    const server = await serve([streamed('openai', [CALL]), answer('openai', 'Done.')]);
    const r = await cli(server.url, [
      '--run-tool',
      'get_weather=node weather.mjs',
      '--yes',
      '--stream',
      '-o',
      'json',
      'Weather?',
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).choices[0].message.content).toBe('Done.');
    expect(toolMessage(server, 1)[0]!.content).toBe('{"city":"Lisbon","temp":24,"argv":[]}');
  });

  it('bounds the output at 64 KiB, with a note', async () => {
    const server = await serve([answer('openai', null, [CALL]), answer('openai', 'ok')]);
    const r = await cli(server.url, ['--run-tool', 'get_weather=node big.mjs', '--yes', 'Weather?']);
    expect(r.exitCode, r.stderr).toBe(0);
    const content = toolMessage(server, 1)[0]!.content as string;
    expect(content.startsWith('x'.repeat(64 * 1024))).toBe(true);
    expect(content.slice(64 * 1024)).toBe('\n[output truncated at 65536 bytes]');
  });

  it('a failing, missing or slow command becomes a tool result saying so, never a crash', async () => {
    for (const [command, timeout, said] of [
      [
        'node fail.mjs',
        '60000',
        /^error: the tool command node fail\.mjs exited with code 3; its stderr: no such city/,
      ],
      [
        'no-such-command-textgen',
        '60000',
        /^error: the tool command "no-such-command-textgen" could not run: not found/,
      ],
      ['node hang.mjs', '1000', /^error: the tool command node hang\.mjs timed out after 1000 ms/],
    ] as const) {
      const server = await serve([answer('openai', null, [CALL]), answer('openai', 'Sorry, no weather.')]);
      const r = await cli(server.url, [
        '--run-tool',
        `get_weather=${command}`,
        '--tool-timeout',
        timeout,
        '--yes',
        'Weather?',
      ]);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toBe('Sorry, no weather.\n');
      expect(toolMessage(server, 1)[0]!.content).toMatch(said);
      expect(r.stderr).toMatch(/warning: tool get_weather: /);
    }
  });

  it('a model that keeps calling tools ends at --max-tool-rounds: exit 4 with one line', async () => {
    const server = await serve([answer('openai', null, [CALL])]);
    const r = await cli(server.url, [
      '--run-tool',
      'get_weather=node weather.mjs',
      '--yes',
      '--max-tool-rounds',
      '3',
      'Weather?',
    ]);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(
      /^(running tool .*\n)*error: the model still calls tools after 3 requests \(--max-tool-rounds 3\)\n/,
    );
    expect(r.stdout).toBe('');
    expect(server.requests).toHaveLength(3);
  });

  it('a call of a tool without --run-tool ends the loop and is printed as a call', async () => {
    const time: Call = { id: 'call_2', name: 'get_time', arguments: '{}' };
    const server = await serve([answer('openai', null, [time])]);
    const r = await cli(server.url, ['--run-tool', 'get_weather=node weather.mjs', '--yes', 'What time is it?']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('{"id":"call_2","name":"get_time","arguments":{}}\n');
    expect(server.requests).toHaveLength(1);
  });

  it('--save keeps every round: the calls, the tool results and the answer', async () => {
    const server = await serve([answer('openai', null, [CALL]), answer('openai', 'Warm.')]);
    const r = await cli(server.url, [
      '--run-tool',
      'get_weather=node weather.mjs',
      '--yes',
      '--save',
      'run.jsonl',
      'Weather?',
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    const saved = readFileSync(join(dir, 'run.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(saved.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(saved[1].tool_calls).toEqual([wireCall(CALL)]);
    expect(saved[3]).toEqual({ role: 'assistant', content: 'Warm.' });
  });

  it('without a terminal and without --yes nothing is sent and nothing runs (exit 2)', async () => {
    const server = await serve([answer('openai', null, [CALL])]);
    const r = await cli(server.url, ['--run-tool', 'get_weather=node weather.mjs', 'Weather?']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe(
      'error: --run-tool runs commands the model asks for; without a terminal to confirm each run, give --yes\nhint: add --yes to run them without asking\n',
    );
    expect(server.requests).toHaveLength(0);
  });
});
