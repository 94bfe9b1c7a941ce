/**
 * `textgen chat` with no message at a terminal (the pty driver, test/helpers/pty.ts, typing each step's keys once
 * its text is on the screen): two turns with the history sent the second time; Ctrl-C during an answer stops that
 * answer and keeps the session; Ctrl-C at the prompt leaves with 130 and Ctrl-D with 0; /system, /reset, /save and
 * continued lines; and, without a terminal, no waiting for input that was not given.
 */
import { execFileSync } from 'node:child_process';
import { lstatSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/emulator/core/index.js';
import { makeHome, runBin } from '../helpers/run-cli.js';
import { runOnTerminal, stripEscapes, type TerminalStep } from '../helpers/pty.js';
import { chatRequests, expectValidWire } from '../helpers/wire.js';

const home = makeHome();
let server: RunningServer;
beforeAll(async () => {
  // Slow enough that an answer is still arriving when the test presses Ctrl-C.
  server = await startServer({ requestLog: { max: 1000 }, tokenDelayMs: 40 });
});
afterAll(async () => {
  await expectValidWire(server.requests);
  await server.close();
  home.cleanup();
});

const onTerminal = (extra: string[], steps: TerminalStep[]) =>
  runOnTerminal(['--provider', 'openai', '--url', server.url, 'chat', '-m', 'm', '-t', '0', ...extra], home.env, {
    steps,
  });

type Message = { role: string; content: string };
const sentSince = (n: number) =>
  chatRequests(server.requests)
    .slice(n)
    .map((r) => (r.json as { messages: Message[] }).messages);
/** The line a finished answer ends with on a terminal. */
const SUMMARY = /stop: \w+ ·[^\n]*[\r\n]+you> /;

describe('an interactive conversation', () => {
  it('two turns: the answers stream, and the second request carries the whole history', async () => {
    const before = chatRequests(server.requests).length;
    const r = await onTerminal(
      ['--max-tokens', '6'],
      [
        { waitFor: 'you> ', keys: 'Name a river.\r' },
        { waitFor: SUMMARY, keys: 'Another one?\r' },
        { waitFor: SUMMARY, keys: '/exit\r' },
      ],
    );
    expect(r.exitCode).toBe(0);
    const [first, second] = sentSince(before);
    expect(first).toEqual([{ role: 'user', content: 'Name a river.' }]);
    expect(second).toHaveLength(3);
    expect(second![0]).toEqual({ role: 'user', content: 'Name a river.' });
    expect(second![1]!.role).toBe('assistant');
    expect(second![1]!.content.length).toBeGreaterThan(0);
    expect(stripEscapes(r.screen)).toContain(second![1]!.content);
    expect(second![2]).toEqual({ role: 'user', content: 'Another one?' });
  });

  it('Ctrl-C during an answer stops it and keeps the session; the text that came stays in the history', async () => {
    const before = chatRequests(server.requests).length;
    const r = await onTerminal(
      ['--max-tokens', '200'],
      [
        { waitFor: 'you> ', keys: 'Tell me about rivers.\r' },
        // Two words of the answer are on the screen (after the spinner's frames, if it had time to show any).
        { waitFor: /Tell me about rivers\.\r*\n(?:[^\n]*?… \d+\.\d s)*[A-Z][a-z]+\W+\w+/, keys: '\u0003' },
        { waitFor: /\(answer stopped\)[\r\n]+you> /, keys: 'Shorter, please.\r' },
        { waitFor: SUMMARY, keys: '/exit\r' },
      ],
    );
    expect(r.exitCode).toBe(0);
    const screen = stripEscapes(r.screen);
    const [, second] = sentSince(before);
    expect(second, screen).toHaveLength(3);
    expect(second![1]!.role).toBe('assistant');
    const partial = second![1]!.content;
    expect(partial.length).toBeGreaterThan(0);
    expect(screen).toContain(partial);
    // The first answer never finished: no summary line before the note that it was stopped.
    expect(screen.split('(answer stopped)')[0]).not.toMatch(/stop: (stop|length)/);
    expect(second![2]).toEqual({ role: 'user', content: 'Shorter, please.' });
  });

  it('Ctrl-C at the prompt leaves with 130; Ctrl-D leaves with 0', async () => {
    expect((await onTerminal([], [{ waitFor: 'you> ', keys: '\u0003' }])).exitCode).toBe(130);
    expect((await onTerminal([], [{ waitFor: 'you> ', keys: '\u0004' }])).exitCode).toBe(0);
  });

  it('/system, /save, /reset and a message continued over two lines', async () => {
    const before = chatRequests(server.requests).length;
    const file = join(home.dir, 'saved.jsonl');
    const r = await onTerminal(
      ['--max-tokens', '4'],
      [
        { waitFor: 'you> ', keys: '/system Be brief.\r' },
        { waitFor: /system message set\)[\r\n]+you> /, keys: 'first line\\\r' },
        { waitFor: '...> ', keys: 'second line\r' },
        { waitFor: SUMMARY, keys: `/save ${file}\r` },
        { waitFor: /saved 3 messages[^\n]*[\r\n]+you> /, keys: '/reset\r' },
        { waitFor: /conversation cleared\)[\r\n]+you> /, keys: 'Again\r' },
        { waitFor: SUMMARY, keys: '/exit\r' },
      ],
    );
    expect(r.exitCode).toBe(0);
    const [first, second] = sentSince(before);
    expect(first).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'first line\nsecond line' },
    ]);
    expect(second).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Again' },
    ]);
    const saved = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Message);
    expect(saved.map((m) => m.role)).toEqual(['system', 'user', 'assistant']);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('/save refuses a named pipe and an existing file (the session goes on); /save --force replaces the file', async () => {
    const fifo = join(home.dir, 'pipe.jsonl');
    execFileSync('mkfifo', [fifo]);
    const kept = join(home.dir, 'kept.jsonl');
    writeFileSync(kept, '{"role":"user","content":"old"}\n');
    const r = await onTerminal(
      ['--max-tokens', '4'],
      [
        { waitFor: 'you> ', keys: 'Hello\r' },
        { waitFor: SUMMARY, keys: `/save ${fifo}\r` },
        { waitFor: /is a named pipe, not a regular file[^\n]*[\r\n]+you> /, keys: `/save ${kept}\r` },
        { waitFor: /exists already; \/save --force [^\n]*[\r\n]+you> /, keys: `/save --force ${kept}\r` },
        { waitFor: /saved 2 messages[^\n]*[\r\n]+you> /, keys: '/exit\r' },
      ],
    );
    expect(r.exitCode).toBe(0);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(readFileSync(kept, 'utf8').trim().split('\n')).toHaveLength(2);
  });
});

describe('without a terminal', () => {
  it('never waits for input it was not given: no message and no stdin is a usage error at once', async () => {
    const r = await runBin(['--provider', 'openai', '--url', server.url, 'chat', '-m', 'm'], {
      env: { ...home.env, CI: '' },
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/nothing to send/);
  });
});
