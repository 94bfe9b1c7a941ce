/**
 * `textgen chat` with no message at a terminal (a pseudo-terminal that the test types into): two turns with the
 * history sent the second time; Ctrl-C during an answer stops that answer and keeps the session; Ctrl-C at the
 * prompt leaves with 130 and Ctrl-D with 0; /system, /reset, /save and continued lines; and, without a terminal,
 * no waiting for input that was not given.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/emulator/core/index.js';
import { makeHome, runBin } from '../helpers/run-cli.js';
import { startTerminalSession } from '../helpers/pty-session.js';
import { chatRequests, expectValidWire } from '../helpers/wire.js';

const home = makeHome();
let server: RunningServer;
beforeAll(async () => {
  // Slow enough that an answer is still arriving when the test presses Ctrl-C.
  server = await startServer({ tokenDelayMs: 40 });
});
afterAll(async () => {
  await expectValidWire(server.requests);
  await server.close();
  home.cleanup();
});

const session = (extra: string[] = []) =>
  startTerminalSession(['--provider', 'openai', '--url', server.url, 'chat', '-m', 'm', '-t', '0', ...extra], { ...home.env, HOME: home.dir });

type Message = { role: string; content: string };
const sentSince = (n: number) => chatRequests(server.requests).slice(n).map((r) => (r.json as { messages: Message[] }).messages);

describe('an interactive conversation', () => {
  it('two turns: the answers stream, and the second request carries the whole history', async () => {
    const before = chatRequests(server.requests).length;
    const t = session(['--max-tokens', '6']);
    let at = await t.waitFor(/you> /);
    t.type('Name a river.\r');
    at = await t.waitFor(/you> /, { from: at });
    t.type('Another one?\r');
    at = await t.waitFor(/you> /, { from: at });
    t.type('/exit\r');
    expect(await t.exited()).toBe(0);
    const [first, second] = sentSince(before);
    expect(first).toEqual([{ role: 'user', content: 'Name a river.' }]);
    expect(second).toHaveLength(3);
    expect(second![0]).toEqual({ role: 'user', content: 'Name a river.' });
    expect(second![1]!.role).toBe('assistant');
    expect(second![1]!.content.length).toBeGreaterThan(0);
    expect(t.screen()).toContain(second![1]!.content);
    expect(second![2]).toEqual({ role: 'user', content: 'Another one?' });
  });

  it('Ctrl-C during an answer stops it and keeps the session; the text that came stays in the history', async () => {
    const before = chatRequests(server.requests).length;
    const t = session(['--max-tokens', '200']);
    let at = await t.waitFor(/you> /);
    t.type('Tell me about rivers.\r');
    // Two words of the answer are on the screen (after the spinner's frames, if it had time to show any).
    at = await t.waitFor(/Tell me about rivers\.\n(?:[^\n]*?… \d+\.\d s)*[A-Z][a-z]+\W+\w+/, { from: 0 });
    t.type('\u0003');
    at = await t.waitFor(/\(answer stopped\)\n+you> /, { from: at });
    t.type('Shorter, please.\r');
    at = await t.waitFor(/you> /, { from: at });
    t.type('/exit\r');
    expect(await t.exited()).toBe(0);
    const [, second] = sentSince(before);
    expect(second, t.screen()).toHaveLength(3);
    expect(second![1]!.role).toBe('assistant');
    const partial = second![1]!.content;
    expect(partial.length).toBeGreaterThan(0);
    expect(t.screen()).toContain(partial);
    // The first answer never finished: no summary line before the note that it was stopped.
    expect(t.screen().split('(answer stopped)')[0]).not.toMatch(/stop: (stop|length)/);
    expect(second![2]).toEqual({ role: 'user', content: 'Shorter, please.' });
  });

  it('Ctrl-C at the prompt leaves with 130; Ctrl-D leaves with 0', async () => {
    const a = session();
    await a.waitFor(/you> /);
    a.type('\u0003');
    expect(await a.exited()).toBe(130);
    const b = session();
    await b.waitFor(/you> /);
    b.type('\u0004');
    expect(await b.exited()).toBe(0);
  });

  it('/system, /save, /reset and a message continued over two lines', async () => {
    const before = chatRequests(server.requests).length;
    const file = join(home.dir, 'saved.jsonl');
    const t = session(['--max-tokens', '4']);
    let at = await t.waitFor(/you> /);
    t.type('/system Be brief.\r');
    at = await t.waitFor(/system message set[\s\S]*you> /, { from: at });
    t.type('first line\\\r');
    at = await t.waitFor(/\.\.\.> /, { from: at });
    t.type('second line\r');
    at = await t.waitFor(/you> /, { from: at });
    t.type(`/save ${file}\r`);
    at = await t.waitFor(/saved 3 messages[\s\S]*you> /, { from: at });
    t.type('/reset\r');
    at = await t.waitFor(/conversation cleared[\s\S]*you> /, { from: at });
    t.type('Again\r');
    at = await t.waitFor(/you> /, { from: at });
    t.type('/exit\r');
    expect(await t.exited()).toBe(0);
    const [first, second] = sentSince(before);
    expect(first).toEqual([{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'first line\nsecond line' }]);
    expect(second).toEqual([{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Again' }]);
    const saved = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Message);
    expect(saved.map((m) => m.role)).toEqual(['system', 'user', 'assistant']);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});

describe('without a terminal', () => {
  it('never waits for input it was not given: no message and no stdin is a usage error at once', async () => {
    const r = await runBin(['--provider', 'openai', '--url', server.url, 'chat', '-m', 'm'], { env: { ...home.env, CI: '' } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/nothing to send/);
  });
});
