/**
 * Conversations as files and batches of them, through the built binary: --save (0600, atomic, the answer included),
 * --continue (the history sent, the new turns appended), and --batch with the batch machinery's order, per-line
 * errors, --shard, and --resume after an interrupted run.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, runBin } from '../helpers/run-cli.js';
import { useServer } from '../helpers/server-fixture.js';
import { chatRequests } from '../helpers/wire.js';

const fixture = useServer();
const dir = mkdtempSync(join(tmpdir(), 'textgen-chat-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const chat = (args: string[], input?: string) =>
  runBin(['--provider', 'openai', '--url', fixture.server.url, 'chat', '-m', 'm', '--max-tokens', '6', ...args], {
    env: fixture.home.env,
    cwd: dir,
    ...(input !== undefined ? { input } : {}),
  });

const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { role: string; content: string });

describe('--save and --continue', () => {
  it('--save writes the conversation and the answer, readable by its owner only; --continue sends it and appends', async () => {
    const file = join(dir, 'talk.jsonl');
    const first = await chat(['--system', 'Be brief.', '--save', 'talk.jsonl', 'Name a river.']);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const saved = lines(file);
    expect(saved).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Name a river.' },
      { role: 'assistant', content: first.stdout.replace(/\n$/, '') },
    ]);

    const second = await chat(['--continue', 'talk.jsonl', 'Another one?']);
    expect(second.exitCode, second.stderr).toBe(0);
    const sent = chatRequests(fixture.server.requests).map((r) => (r.json as { messages: unknown }).messages);
    expect(sent[1]).toEqual([...saved, { role: 'user', content: 'Another one?' }]);
    expect(lines(file)).toEqual([
      ...saved,
      { role: 'user', content: 'Another one?' },
      { role: 'assistant', content: second.stdout.replace(/\n$/, '') },
    ]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('--continue with --save writes the longer conversation elsewhere and leaves the original as it was', async () => {
    writeFileSync(join(dir, 'orig.jsonl'), '{"role":"user","content":"Hi"}\n{"role":"assistant","content":"Hello."}\n');
    const r = await chat(['--continue', 'orig.jsonl', '--save', 'copy.jsonl', 'How are you?']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(lines(join(dir, 'orig.jsonl'))).toHaveLength(2);
    expect(lines(join(dir, 'copy.jsonl')).map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });

  it('a bad line of a conversation file is a usage error naming the file and the line; nothing is sent', async () => {
    writeFileSync(join(dir, 'bad.jsonl'), '{"role":"user","content":"Hi"}\n{"role":"robot","content":"x"}\n');
    const r = await chat(['--continue', 'bad.jsonl', 'Go on']);
    expect(r.exitCode).toBe(2);
    // What the file holds is never repeated: only the line and what was expected.
    expect(r.stderr).toMatch(/--continue bad\.jsonl line 2: role must be one of system, user, assistant, got a string/);
    expect(r.stderr).not.toContain('robot');
    expect(fixture.server.requests).toHaveLength(0);
  });

  it('a failed turn leaves the saved conversation untouched', async () => {
    writeFileSync(join(dir, 'keep.jsonl'), '{"role":"user","content":"Hi"}\n{"role":"assistant","content":"Hello."}\n');
    fixture.server.faults.push({ kind: 'status', status: 400 });
    const r = await chat(['--continue', 'keep.jsonl', 'More']);
    expect(r.exitCode).toBe(4);
    expect(lines(join(dir, 'keep.jsonl'))).toHaveLength(2);
  });
});

interface Rec {
  line: number;
  id?: unknown;
  result?: { provider: string; choices: Array<{ message: { content: string } }> };
  error?: { exit_code: number; message: string };
}
const parse = (text: string): Rec[] =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Rec);

function batchFile(name: string, n: number): string {
  const path = join(dir, name);
  const text = Array.from({ length: n }, (_, i) =>
    JSON.stringify({ messages: [{ role: 'user', content: `question ${i + 1}` }], id: `q${i + 1}` }),
  );
  writeFileSync(path, `${text.join('\n')}\n`);
  return path;
}

describe('chat --batch', () => {
  it("one record per line in input order, a line's parameters over the flags, bad lines as error records", async () => {
    const path = join(dir, 'mixed.jsonl');
    writeFileSync(
      path,
      [
        JSON.stringify({ messages: [{ role: 'user', content: 'a' }], id: 1 }),
        JSON.stringify({
          messages: [{ role: 'user', content: 'b' }],
          parameters: { max_tokens: 2, temperature: 0 },
          id: 2,
        }),
        JSON.stringify({ messages: [{ role: 'bot', content: 'c' }], id: 3 }),
        'not json',
        JSON.stringify({ messages: [{ role: 'user', content: 'e' }], parameters: { time_limit: 5 }, id: 5 }),
        JSON.stringify({ input: 'f', id: 6 }),
      ].join('\n'),
    );
    const r = await chat(['--system', 'Be brief.', '--batch', path, '--concurrency', '3']);
    expect(r.exitCode).toBe(4);
    const recs = parse(r.stdout);
    expect(recs.map((x) => [x.line, x.id, x.result ? 'ok' : x.error?.exit_code])).toEqual([
      [1, 1, 'ok'],
      [2, 2, 'ok'],
      [3, 3, 2],
      [4, undefined, 2],
      [5, 5, 2],
      [6, 6, 2],
    ]);
    expect(recs[0]!.result!.provider).toBe('openai');
    expect(recs[2]!.error!.message).toMatch(/messages\[0\]\.role must be one of/);
    expect(recs[4]!.error!.message).toMatch(/time_limit is not supported by openai chat/);
    expect(recs[5]!.error!.message).toMatch(/unknown field "input"/);
    const sent = chatRequests(fixture.server.requests).map(
      (x) => x.json as { messages: Array<{ content: string }>; max_tokens: number; temperature?: number },
    );
    expect(sent.map((b) => [b.messages.map((m) => m.content), b.max_tokens, b.temperature]).sort()).toEqual([
      [['Be brief.', 'a'], 6, undefined],
      [['Be brief.', 'b'], 2, 0],
    ]);
    expect(r.stderr).toMatch(/^batch: 6 lines processed, 2 succeeded, 4 failed/m);
  });

  it('--shard K/N runs its lines only; flags that give a conversation of their own are refused', async () => {
    const path = batchFile('shard.jsonl', 6);
    const r = await chat(['--batch', path, '--shard', '2/3']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(parse(r.stdout).map((x) => x.id)).toEqual(['q2', 'q5']);
    const refused = await chat(['--batch', path, 'a message']);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/message words cannot be used with --batch/);
  });

  it('resumes an interrupted batch: every line once, in order, only the missing ones sent again', async () => {
    fixture.server.faults.push({ kind: 'delay', ms: 5, maxMs: 25, times: Number.POSITIVE_INFINITY });
    const path = batchFile('long.jsonl', 150);
    const out = join(dir, 'long.out.jsonl');
    const args = [
      '--provider',
      'openai',
      '--url',
      fixture.server.url,
      'chat',
      '-m',
      'm',
      '--max-tokens',
      '3',
      '--batch',
      path,
      '--concurrency',
      '4',
      '--resume',
      out,
    ];
    const child = execa('node', [BIN, ...args], {
      env: { ...fixture.home.env, CI: 'true' },
      reject: false,
      stdin: 'ignore',
      timeout: 30_000,
    });
    while (chatRequests(fixture.server.requests).length < 30) await new Promise((r) => setTimeout(r, 5));
    child.kill('SIGINT');
    const first = await child;
    expect(first.exitCode).toBe(130);
    const partial = parse(readFileSync(out, 'utf8'));
    expect(partial.length).toBeGreaterThan(0);
    expect(partial.length).toBeLessThan(150);
    const before = chatRequests(fixture.server.requests).length;

    const second = await runBin(args, { env: fixture.home.env, timeout: 40_000 });
    expect(second.exitCode, second.stderr).toBe(0);
    const all = parse(readFileSync(out, 'utf8'));
    expect(all.map((x) => x.line)).toEqual(Array.from({ length: 150 }, (_, i) => i + 1));
    expect(all.every((x) => x.id === `q${x.line}` && typeof x.result?.choices[0]?.message.content === 'string')).toBe(
      true,
    );
    expect(chatRequests(fixture.server.requests).length - before).toBe(150 - partial.length);
    expect(second.stderr).toMatch(new RegExp(`${partial.length} skipped`));
  }, 60_000);

  it("--dry-run shows the first line's request and sends nothing", async () => {
    const path = batchFile('dry.jsonl', 3);
    const r = await chat(['--batch', path, '--dry-run']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^curl .*\/v1\/chat\/completions.*question 1/);
    expect(fixture.server.requests).toHaveLength(0);
  });
});
