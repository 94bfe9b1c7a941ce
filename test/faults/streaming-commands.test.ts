/**
 * Conformance of the streaming commands: every command that reads a generation or a chat answer goes through one
 * call pipeline (src/call/), so against the same misbehaving service they all end alike — the same exit code, the
 * same message, the same escaping on a terminal, the text that came before a break kept. The matrix is data:
 * COMMANDS × FAULTS, with what each fault must give on a streamed wire and on a whole answer. Runs the built CLI
 * against one scripted OpenAI-shaped server on 127.0.0.1; the escape cases run on a pseudo-terminal.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { makeHome, runBin, type CliResult } from '../helpers/run-cli.js';
import { runOnTerminal } from '../helpers/pty.js';

const home = makeHome();
afterAll(() => home.cleanup());
const open: Server[] = [];
afterEach(async () => {
  await Promise.all(
    open.splice(0).map(
      (s) =>
        new Promise<void>((done) => {
          s.closeAllConnections();
          s.close(() => done());
        }),
    ),
  );
});

/** What goes on the wire for a command: a stream of events, or one whole answer. */
type Wire = 'stream' | 'whole';

interface Command {
  name: string;
  wire: Wire;
  /** A batch with --fail-fast: its exit code is the failed line's, its record carries that code too. */
  batch?: 'generate' | 'chat';
  args: string[];
}

const CHAT_LINE = `${JSON.stringify({ messages: [{ role: 'user', content: 'Hi' }] })}\n`;
const GENERATE_LINE = `${JSON.stringify({ input: 'Hi' })}\n`;
const chatLines = join(home.dir, 'chat.jsonl');
const generateLines = join(home.dir, 'generate.jsonl');
writeFileSync(chatLines, CHAT_LINE);
writeFileSync(generateLines, GENERATE_LINE);

const COMMANDS: Command[] = [
  {
    name: 'deployment text-generate-stream',
    wire: 'stream',
    args: ['deployment', 'text-generate-stream', '--id-or-name', 'm', '--input', 'Hi'],
  },
  { name: 'complete --stream', wire: 'stream', args: ['complete', '--stream', '-m', 'm', 'Hi'] },
  { name: 'chat --stream', wire: 'stream', args: ['chat', '--stream', '-m', 'm', 'Hi'] },
  { name: 'chat --no-stream', wire: 'whole', args: ['chat', '--no-stream', '-m', 'm', 'Hi'] },
  {
    // A client-side time limit streams each line on the wire, to keep the text generated in time.
    name: 'deployment text-generate --batch (time limit: streamed lines)',
    wire: 'stream',
    batch: 'generate',
    args: [
      'deployment',
      'text-generate',
      '--id-or-name',
      'm',
      '--parameters-time-limit',
      '60000',
      '--batch',
      generateLines,
      '--fail-fast',
    ],
  },
  {
    name: 'chat --batch',
    wire: 'whole',
    batch: 'chat',
    args: ['chat', '-m', 'm', '--batch', chatLines, '--fail-fast'],
  },
];

/** The text a well-behaved answer holds in the escape case: a window title, a screen clear, bidi and zero-width. */
const HOSTILE = 'ok \u001b]0;PWNED\u0007 \u001b[2J \u202eevil\u202c \u200bdone';

interface Expected {
  exit: number;
  stderr?: RegExp;
  /** The text that came before the break is on stdout (commands that print text; a batch record holds the error). */
  partial?: boolean;
}

interface Fault {
  /** The scripted service: `chat` says which route was called, `stream` whether the request asked for a stream. */
  answer(res: ServerResponse, call: { chat: boolean; stream: boolean }): void;
  stream: Expected;
  whole: Expected;
}

const completionChunk = (text: string, finish: string | null) =>
  JSON.stringify({
    id: 'c',
    object: 'text_completion',
    created: 1,
    model: 'm',
    choices: [{ text, index: 0, logprobs: null, finish_reason: finish }],
  });
const chatChunk = (text: string, finish: string | null) =>
  JSON.stringify({
    id: 'c',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta: { content: text }, finish_reason: finish }],
  });
const chunk = (chat: boolean, text: string, finish: string | null) =>
  chat ? chatChunk(text, finish) : completionChunk(text, finish);
const whole = (chat: boolean, text: string) =>
  JSON.stringify(
    chat
      ? {
          id: 'c',
          object: 'chat.completion',
          created: 1,
          model: 'm',
          choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }
      : {
          id: 'c',
          object: 'text_completion',
          created: 1,
          model: 'm',
          choices: [{ text, index: 0, logprobs: null, finish_reason: 'stop' }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        },
  );

const sse = (res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.flushHeaders();
};
const json = (res: ServerResponse, status: number, body: string) => {
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
  res.end(body);
};
/** Writes every 100 ms until the client goes away. */
const forEver = (res: ServerResponse, text: string) => {
  const timer = setInterval(() => res.write(text), 100);
  res.on('close', () => clearInterval(timer));
};

const FAULTS: Record<string, Fault> = {
  'keep-alive only': {
    answer(res, { stream }) {
      if (stream) {
        sse(res);
        forEver(res, ': keep-alive\n\n');
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        forEver(res, ' ');
      }
    },
    stream: { exit: 6, stderr: /stream broke off: openai sent nothing for 1 s but keep-alive comments/ },
    whole: { exit: 5, stderr: /did not finish sending its answer/ },
  },
  "another protocol's events": {
    answer(res, { stream }) {
      if (stream) {
        sse(res);
        res.end('data: {"hello":"world"}\n\ndata: {"hello":"world"}\n\ndata: [DONE]\n\n');
      } else json(res, 200, '{"hello":"world"}');
    },
    stream: { exit: 4, stderr: /unexpected answer.*"choices"/ },
    whole: { exit: 4, stderr: /unexpected answer/ },
  },
  'terminal escapes': {
    answer(res, { chat, stream }) {
      if (stream) {
        sse(res);
        res.end(`data: ${chunk(chat, HOSTILE, null)}\n\ndata: ${chunk(chat, '', 'stop')}\n\ndata: [DONE]\n\n`);
      } else json(res, 200, whole(chat, HOSTILE));
    },
    stream: { exit: 0 },
    whole: { exit: 0 },
  },
  'an error event mid-stream': {
    answer(res, { chat, stream }) {
      if (stream) {
        sse(res);
        res.end(
          `data: ${chunk(chat, 'partial ', null)}\n\ndata: {"error":{"message":"boom","code":"server_error"}}\n\n`,
        );
      } else json(res, 200, '{"error":{"message":"boom","code":"server_error"}}');
    },
    stream: { exit: 6, stderr: /stream broke off: server_error boom/, partial: true },
    whole: { exit: 4 },
  },
  silence: {
    answer(res, { stream }) {
      if (stream) sse(res);
      // A whole answer: not even the headers.
    },
    stream: { exit: 6, stderr: /stream broke off/ },
    whole: { exit: 5 },
  },
  'a 5xx': {
    answer(res) {
      json(res, 503, '{"error":{"message":"overloaded","type":"server_error","code":"busy"}}');
    },
    stream: { exit: 4, stderr: /HTTP 503/ },
    whole: { exit: 4, stderr: /HTTP 503/ },
  },
  'a cut connection': {
    answer(res, { chat, stream }) {
      if (stream) {
        sse(res);
        res.write(`data: ${chunk(chat, 'partial ', null)}\n\n`, () => res.socket?.destroy());
      } else {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
        res.write(whole(chat, 'partial ').slice(0, 40), () => res.socket?.destroy());
      }
    },
    stream: { exit: 6, stderr: /stream broke off/, partial: true },
    whole: { exit: 5 },
  },
};

/** The scripted server reads the request body to know the route and whether a stream was asked for. */
function handler(fault: Fault) {
  return (req: IncomingMessage, res: ServerResponse) => {
    const chat = (req.url ?? '').includes('/chat/completions');
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => {
      body += d;
    });
    req.on('end', () => {
      let stream = false;
      try {
        stream = (JSON.parse(body) as { stream?: unknown }).stream === true;
      } catch {
        // Not JSON: answer as for a whole request.
      }
      fault.answer(res, { chat, stream });
    });
  };
}

const base = (url: string) => [
  '--provider',
  'openai',
  '--url',
  url,
  '--token',
  't',
  '--retries',
  '0',
  '--timeout',
  '1000',
];

function judge(command: Command, expected: Expected, r: CliResult): void {
  expect(r.exitCode, `${command.name}\n${r.stderr}`).toBe(expected.exit);
  expect(r.stderr).not.toMatch(/^\s+at /m);
  if (command.batch) {
    const records = r.stdout
      .trim()
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { error?: { exit_code: number; message: string } });
    expect(records).toHaveLength(1);
    if (expected.exit === 0) expect(records[0]?.error).toBeUndefined();
    else {
      expect(records[0]?.error?.exit_code).toBe(expected.exit);
      if (expected.stderr) expect(records[0]?.error?.message).toMatch(expected.stderr);
    }
    return;
  }
  const errors = r.stderr.split('\n').filter((l) => l.startsWith('error: '));
  if (expected.exit === 0) expect(errors).toEqual([]);
  else {
    expect(errors, r.stderr).toHaveLength(1);
    if (expected.stderr) expect(errors[0]).toMatch(expected.stderr);
  }
  if (expected.partial) expect(r.stdout).toMatch(/^partial/);
}

describe('streaming commands behave alike (built CLI, one scripted OpenAI-shaped server)', () => {
  const cases = Object.entries(FAULTS)
    .filter(([name]) => name !== 'terminal escapes')
    .flatMap(([faultName, fault]) => COMMANDS.map((command) => ({ faultName, fault, command })));
  it.each(cases.map((c) => [c.faultName, c.command.name, c] as const))(
    '%s: %s',
    async (_f, _c, { fault, command }) => {
      const url = await scripted(fault);
      const expected = fault[command.wire];
      const r = await runBin([...base(url), ...command.args], { env: home.env, timeout: 30_000 });
      judge(command, expected, r);
    },
    40_000,
  );
});

describe('on a terminal every command shows the service text escaped, never obeyed', () => {
  it.each(COMMANDS.map((c) => [c.name, c] as const))(
    '%s',
    async (_name, command) => {
      const url = await scripted(FAULTS['terminal escapes'] as Fault);
      const run = await runOnTerminal([...base(url), ...command.args], { ...home.env, CI: '' }, { timeoutMs: 30_000 });
      expect(run.exitCode, run.screen).toBe(0);
      // Obeyed, these would set the window title, clear the screen and reorder or hide text.
      expect(run.screen).not.toContain('\u001b]0;PWNED');
      expect(run.screen).not.toContain('\u001b[2J');
      expect(run.screen).not.toContain('\u202e');
      expect(run.screen).not.toContain('\u200b');
      if (command.batch) {
        // A JSON record quotes them as JSON escapes.
        expect(run.screen).toContain('\\u001b]0;PWNED\\u0007');
        expect(run.screen).toContain('\\u202eevil');
      } else {
        expect(run.screen).toContain('ok \\x1b]0;PWNED\\x07 \\x1b[2J \\u202eevil\\u202c \\u200bdone');
      }
    },
    40_000,
  );
});

/** One scripted server per case, on 127.0.0.1 port 0, closed after the case. */
async function scripted(fault: Fault): Promise<string> {
  const server = createServer(handler(fault));
  open.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return `http://127.0.0.1:${address.port}`;
}
