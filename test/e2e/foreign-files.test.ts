/**
 * Files that are not textgen's, through the built binary: every writer of a user-named file (chat --save,
 * --continue, batch --resume, profiles add --config) refuses a path that is not a regular file and another user's
 * symbolic link before anything is sent; one writer at a time (a second one refused, stale locks taken over); a write
 * that fails after the answer is exit 7 with the answer printed; --save does not replace a conversation without
 * --force; a file that is not a conversation is never quoted; a named pipe being read stops on SIGINT and SIGTERM.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { open } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { BIN, baseEnv, makeHome, runBin } from '../helpers/run-cli.js';

// Several CLI runs per case: on a loaded 2-core machine one run can take seconds.
vi.setConfig({ testTimeout: 120_000 });

const dir = mkdtempSync(join(tmpdir(), 'textgen-foreign-files-'));
const home = makeHome();
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  home.cleanup();
});
const isRoot = process.getuid?.() === 0;
let n = 0;
/** A fresh directory per case. */
const fresh = () => {
  const d = join(dir, `case-${++n}`);
  mkdirSync(d);
  return d;
};

/**
 * An OpenAI-shaped chat server the tests can hold (answers wait until `release`), watch (`received(k)` resolves when
 * the k-th request has arrived) and hook (`beforeAnswer` runs just before it answers: the moment after a request was
 * paid for).
 */
interface ChatServer {
  url: string;
  count(): number;
  received(k: number): Promise<void>;
  hold(): void;
  release(): void;
  beforeAnswer: (() => void) | undefined;
}
let server: Server;
const chatServer: ChatServer = {
  url: '',
  count: () => 0,
  received: async () => undefined,
  hold: () => undefined,
  release: () => undefined,
  beforeAnswer: undefined,
};
beforeAll(async () => {
  let seen = 0;
  let waiters: Array<{ k: number; done: () => void }> = [];
  let gate: Promise<void> = Promise.resolve();
  let open: () => void = () => undefined;
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', async () => {
      seen++;
      for (const w of waiters.filter((x) => x.k <= seen)) w.done();
      waiters = waiters.filter((x) => x.k > seen);
      await gate;
      chatServer.beforeAnswer?.();
      const last = (JSON.parse(body) as { messages: Array<{ content: string }> }).messages.at(-1)?.content ?? '';
      const text = JSON.stringify({
        id: `c${seen}`,
        object: 'chat.completion',
        created: 1,
        model: 'm',
        choices: [{ index: 0, message: { role: 'assistant', content: `answer to ${last}` }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 1, completion_tokens: 3, total_tokens: 4 },
      });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  chatServer.url = `http://127.0.0.1:${address.port}`;
  chatServer.count = () => seen;
  chatServer.received = (k) =>
    k <= seen ? Promise.resolve() : new Promise<void>((done) => waiters.push({ k: k, done }));
  chatServer.hold = () => {
    gate = new Promise<void>((resolve) => {
      open = resolve;
    });
  };
  chatServer.release = () => open();
});
afterEach(() => {
  chatServer.release();
  chatServer.beforeAnswer = undefined;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** The figures this file prints at its end (docs/reliability.md). */
const figures = { runs: 0, refused: 0, late: 0, signals: 0, slowestSignalMs: 0 };
afterAll(() => {
  console.log(
    `foreign files: ${figures.runs} CLI runs, ${figures.refused} refused before sending (exit 2, nothing sent), ${figures.late} late write failures as exit 7 with the answer kept, ${figures.signals} named-pipe reads stopped by SIGINT/SIGTERM (slowest ${figures.slowestSignalMs} ms), 0 files not textgen's changed`,
  );
});

const CHAT = () => ['--provider', 'openai', '--url', chatServer.url, 'chat', '-m', 'm'];
const run = async (args: string[], cwd: string) => {
  const r = await runBin(args, { env: home.env, cwd });
  figures.runs++;
  if (r.exitCode === 2) figures.refused++;
  if (r.exitCode === 7) figures.late++;
  return r;
};
const spawn = (args: string[], cwd: string): ResultPromise =>
  execa('node', [BIN, ...args], {
    env: { ...baseEnv(), CI: 'true', ...home.env },
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    cwd,
    timeout: 20_000,
    stripFinalNewline: false,
  }) as unknown as ResultPromise;

const conversation = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { role: string; content: string });
const TWO = '{"role":"user","content":"Hi"}\n{"role":"assistant","content":"Hello."}\n';
const batchInput = (d: string, lines: number) => {
  const file = join(d, 'in.jsonl');
  writeFileSync(
    file,
    Array.from(
      { length: lines },
      (_, i) => `${JSON.stringify({ messages: [{ role: 'user', content: `q${i + 1}` }] })}\n`,
    ).join(''),
  );
  return file;
};
const records = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { line: number }).line);

/** The writers, each given the path under test; `existing` cases pass --force where --save needs it. */
const WRITERS: Array<{ name: string; args: (target: string, d: string) => string[] }> = [
  { name: 'chat --save', args: (t) => [...CHAT(), '--save', t, '--force', 'Hi'] },
  { name: 'chat --continue', args: (t) => [...CHAT(), '--continue', t, 'Hi'] },
  { name: 'chat --batch --resume', args: (t, d) => [...CHAT(), '--batch', batchInput(d, 2), '--resume', t] },
  {
    name: 'profiles add --config',
    args: (t) => [
      '--config',
      t,
      'profiles',
      'add',
      'p',
      '--provider',
      'openai',
      '--url',
      'http://127.0.0.1:9',
      '--no-check',
    ],
  },
];

describe('a path that is not a regular file is refused before anything is sent (exit 2, naming it)', () => {
  it.each(WRITERS)('$name on a named pipe: refused, the pipe left as it is', async ({ args }) => {
    const d = fresh();
    const fifo = join(d, 'pipe.jsonl');
    execFileSync('mkfifo', [fifo]);
    const before = chatServer.count();
    const r = await run(args(fifo, d), d);
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/^error: .*pipe\.jsonl is a named pipe, not a regular file/m);
    expect(chatServer.count()).toBe(before);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });

  it.each(WRITERS)('$name on a directory, a path under a file, a name too long: refused', async ({ args }) => {
    const d = fresh();
    mkdirSync(join(d, 'adir.jsonl'));
    writeFileSync(join(d, 'afile'), 'x');
    const before = chatServer.count();
    for (const [target, message] of [
      [join(d, 'adir.jsonl'), /adir\.jsonl is a directory, not a regular file/],
      [join(d, 'afile', 'c.jsonl'), /cannot write .*afile\/c\.jsonl: .*(ENOTDIR)/],
      [join(d, `${'n'.repeat(250)}.jsonl`), /cannot write .*: the name is too long \(256 bytes; at most 223/],
    ] as const) {
      const r = await run(args(target, d), d);
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    expect(chatServer.count()).toBe(before);
  });

  it.skipIf(!isRoot)(
    "another user's symbolic link in a sticky shared directory: refused by every writer, the file behind it untouched",
    async () => {
      // Staged as it happens in /tmp: a 1777 directory, a link owned by uid 65534 pointing at a root-only file.
      const shared = fresh();
      chmodSync(shared, 0o1777);
      const victim = join(fresh(), 'root-only');
      writeFileSync(victim, 'root:secret\n', { mode: 0o644 });
      chmodSync(victim, 0o644);
      const link = join(shared, 'chat.jsonl');
      symlinkSync(victim, link);
      lchownSync(link, 65534, 65534);
      const before = chatServer.count();
      for (const w of WRITERS) {
        const r = await run(w.args(link, shared), shared);
        expect(r.exitCode, `${w.name}: ${r.stderr}`).toBe(2);
        expect(r.stderr).toMatch(/chat\.jsonl is a symbolic link owned by another user \(uid 65534\)/);
        expect(r.stderr).not.toContain('secret');
      }
      expect(chatServer.count()).toBe(before);
      expect(readFileSync(victim, 'utf8')).toBe('root:secret\n');
      expect(statSync(victim).mode & 0o777).toBe(0o644);
      expect(readlinkSync(link)).toBe(victim);
    },
  );
  if (!isRoot) it("(another user's link: skipped, staging it needs root to chown the link)", () => undefined);

  it("the user's own symbolic link is followed: the file behind it is written, the link stays a link", async () => {
    const d = fresh();
    const real = join(d, 'real.jsonl');
    writeFileSync(real, TWO);
    symlinkSync(real, join(d, 'link.jsonl'));
    const r = await run([...CHAT(), '--continue', 'link.jsonl', 'More'], d);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(lstatSync(join(d, 'link.jsonl')).isSymbolicLink()).toBe(true);
    expect(conversation(real)).toHaveLength(4);
  });

  it('a --save or --resume in a directory that does not exist yet: it is made (0700), and the file written', async () => {
    const d = fresh();
    const saved = await run([...CHAT(), '--save', 'new/deeper/c.jsonl', 'Hi'], d);
    expect(saved.exitCode, saved.stderr).toBe(0);
    expect(conversation(join(d, 'new', 'deeper', 'c.jsonl'))).toHaveLength(2);
    expect(statSync(join(d, 'new')).mode & 0o777).toBe(0o700);
    const resumed = await run([...CHAT(), '--batch', batchInput(d, 2), '--resume', 'out/o.jsonl'], d);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(records(join(d, 'out', 'o.jsonl'))).toEqual([1, 2]);
    expect(existsSync(join(d, 'out', 'o.jsonl.lock'))).toBe(false);
  });

  it.skipIf(!isRoot)(
    'a directory the user cannot write is refused before sending (run as uid 65534, since root writes anywhere)',
    async () => {
      const d = fresh();
      chmodSync(dir, 0o755);
      chmodSync(d, 0o755);
      const nobodyHome = join(fresh(), 'home');
      mkdirSync(nobodyHome, { mode: 0o777 });
      chmodSync(join(nobodyHome, '..'), 0o755);
      chmodSync(nobodyHome, 0o777);
      const before = chatServer.count();
      const r = await execa('node', [BIN, ...CHAT(), '--save', join(d, 'c.jsonl'), 'Hi'], {
        env: { ...baseEnv(), CI: 'true', HOME: nobodyHome, XDG_CONFIG_HOME: join(nobodyHome, 'c') },
        extendEnv: false,
        reject: false,
        stdin: 'ignore',
        cwd: nobodyHome,
        uid: 65534,
        gid: 65534,
        timeout: 20_000,
      });
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/--save: cannot write .*c\.jsonl: .*permission denied \(EACCES\)/);
      figures.runs++;
      figures.refused++;
      expect(chatServer.count()).toBe(before);
    },
  );
});

describe('one writer at a time: the second is refused (exit 2), nothing lost', () => {
  it('two chat --continue on one file: the second is refused while the first runs; no turn is lost', async () => {
    const d = fresh();
    writeFileSync(join(d, 'talk.jsonl'), TWO);
    chatServer.hold();
    const start = chatServer.count();
    const first = spawn([...CHAT(), '--continue', 'talk.jsonl', 'first'], d);
    await chatServer.received(start + 1);
    const second = await run([...CHAT(), '--continue', 'talk.jsonl', 'second'], d);
    expect(second.exitCode, second.stderr).toBe(2);
    expect(second.stderr).toMatch(/^error: talk\.jsonl is in use by process \d+ \(another textgen writing it\)/m);
    expect(chatServer.count()).toBe(start + 1);
    chatServer.release();
    const done = await first;
    expect(done.exitCode, String(done.stderr)).toBe(0);
    expect(conversation(join(d, 'talk.jsonl')).map((m) => m.content)).toEqual([
      'Hi',
      'Hello.',
      'first',
      'answer to first',
    ]);
    expect(existsSync(join(d, 'talk.jsonl.lock'))).toBe(false);
    const third = await run([...CHAT(), '--continue', 'talk.jsonl', 'third'], d);
    expect(third.exitCode, third.stderr).toBe(0);
    expect(conversation(join(d, 'talk.jsonl'))).toHaveLength(6);
  });

  it('two batches with one --resume file: the second is refused, the file ends with one record per line', async () => {
    const d = fresh();
    const input = batchInput(d, 6);
    const args = [...CHAT(), '--batch', input, '--concurrency', '1', '--resume', 'out.jsonl'];
    chatServer.hold();
    const start = chatServer.count();
    const first = spawn(args, d);
    await chatServer.received(start + 1);
    const second = await run(args, d);
    expect(second.exitCode, second.stderr).toBe(2);
    expect(second.stderr).toMatch(/^error: out\.jsonl is in use by process \d+/m);
    chatServer.release();
    const done = await first;
    expect(done.exitCode, String(done.stderr)).toBe(0);
    expect(records(join(d, 'out.jsonl'))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(chatServer.count()).toBe(start + 6);
  });

  it('a stale lock is taken over: its process is gone, or it has not been refreshed for a long time', async () => {
    const d = fresh();
    writeFileSync(join(d, 'talk.jsonl'), TWO);
    // A pid that is certainly dead: a process that has exited.
    const dead = spawnSync('node', ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    writeFileSync(
      join(d, 'talk.jsonl.lock'),
      JSON.stringify({ pid: Number(dead), host: (await import('node:os')).hostname(), at: 1 }),
    );
    const r = await run([...CHAT(), '--continue', 'talk.jsonl', 'after a crash'], d);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(existsSync(join(d, 'talk.jsonl.lock'))).toBe(false);

    // Unreadable, and a minute old: judged by its age.
    writeFileSync(join(d, 'talk.jsonl.lock'), 'garbage');
    const old = new Date(Date.now() - 60_000);
    utimesSync(join(d, 'talk.jsonl.lock'), old, old);
    const again = await run([...CHAT(), '--continue', 'talk.jsonl', 'once more'], d);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(conversation(join(d, 'talk.jsonl'))).toHaveLength(6);
  });
});

describe('a write that fails after the answer came: exit 7 naming the path and the cause, the answer printed', () => {
  it('chat --save: the directory turned into a file while the request ran', async () => {
    const d = fresh();
    mkdirSync(join(d, 'out'));
    chatServer.beforeAnswer = () => {
      rmSync(join(d, 'out'), { recursive: true });
      writeFileSync(join(d, 'out'), 'now a file');
    };
    const r = await run([...CHAT(), '--save', 'out/c.jsonl', 'Hi'], d);
    expect(r.exitCode, r.stderr).toBe(7);
    expect(r.stdout).toBe('answer to Hi\n');
    expect(r.stderr).toMatch(/^error: --save: cannot write out\/c\.jsonl: .*\((ENOTDIR|EEXIST)\)$/m);
    expect(r.stderr).not.toMatch(/internal error/);
  });

  it('chat --continue: the file turned into a named pipe while the request ran is not replaced', async () => {
    const d = fresh();
    writeFileSync(join(d, 'talk.jsonl'), TWO);
    chatServer.beforeAnswer = () => {
      rmSync(join(d, 'talk.jsonl'));
      execFileSync('mkfifo', [join(d, 'talk.jsonl')]);
    };
    const r = await run([...CHAT(), '--continue', 'talk.jsonl', 'Hi'], d);
    expect(r.exitCode, r.stderr).toBe(7);
    expect(r.stdout).toBe('answer to Hi\n');
    expect(r.stderr).toMatch(/--continue: cannot write talk\.jsonl: it became a named pipe while the request ran/);
    expect(lstatSync(join(d, 'talk.jsonl')).isFIFO()).toBe(true);
  });

  it('batch --resume: the output moved away while the batch ran', async () => {
    const d = fresh();
    mkdirSync(join(d, 'out'));
    const input = batchInput(d, 3);
    // An earlier run's record for line 1: the end of this run merges the two parts, in the directory that is gone.
    writeFileSync(
      join(d, 'out', 'o.jsonl'),
      `${JSON.stringify({ line: 1, result: { provider: 'openai', choices: [{ message: { content: 'x' } }] } })}\n`,
    );
    chatServer.beforeAnswer = () => {
      if (existsSync(join(d, 'out'))) renameSync(join(d, 'out'), join(d, 'moved'));
    };
    const r = await run([...CHAT(), '--batch', input, '--concurrency', '1', '--resume', 'out/o.jsonl'], d);
    expect(r.exitCode, r.stderr).toBe(7);
    expect(r.stderr).toMatch(/^error: --resume: cannot write out\/o\.jsonl: .*\(ENOENT\)$/m);
    // The records of this run are kept where the file went: a later --resume finds them.
    expect(records(join(d, 'moved', 'o.jsonl'))).toEqual([1, 2, 3]);
  });

  const unshare = spawnSync('unshare', ['-m', 'true']).status === 0;
  it.skipIf(!unshare)(
    'a full disk: --save and --resume on a 4 KiB tmpfs in a private mount namespace (ENOSPC)',
    async () => {
      const d = fresh();
      const mnt = join(d, 'mnt');
      mkdirSync(mnt);
      const big = 'x'.repeat(6000);
      const input = join(d, 'big.jsonl');
      writeFileSync(input, `${JSON.stringify({ messages: [{ role: 'user', content: big }] })}\n`.repeat(2));
      const inTmpfs = (args: string[]) =>
        execa(
          'unshare',
          ['-m', 'sh', '-c', 'mount -t tmpfs -o size=4k tmpfs "$0" && exec node "$@"', mnt, BIN, ...args],
          {
            env: { ...baseEnv(), CI: 'true', ...home.env },
            extendEnv: false,
            reject: false,
            stdin: 'ignore',
            cwd: d,
            timeout: 20_000,
          },
        );
      const saved = await inTmpfs([...CHAT(), '--save', join(mnt, 'c.jsonl'), big]);
      expect(saved.exitCode, String(saved.stderr)).toBe(7);
      expect(saved.stdout).toBe(`answer to ${big}`);
      expect(saved.stderr).toMatch(/--save: cannot write .*c\.jsonl: no space left on device \(ENOSPC\)/);
      const resumed = await inTmpfs([...CHAT(), '--batch', input, '--resume', join(mnt, 'o.jsonl')]);
      expect(resumed.exitCode, String(resumed.stderr)).toBe(7);
      expect(resumed.stderr).toMatch(/--resume: cannot write .*o\.jsonl: no space left on device \(ENOSPC\)/);
      figures.runs += 2;
      figures.late += 2;
    },
  );
  if (!unshare) it('(a full disk: skipped, no private mount namespace here: unshare -m failed)', () => undefined);
});

describe('chat --save does not replace a saved conversation', () => {
  it('an existing file is refused, pointing to --continue; --force replaces it', async () => {
    const d = fresh();
    writeFileSync(join(d, 'talk.jsonl'), TWO);
    const before = chatServer.count();
    const r = await run([...CHAT(), '--save', 'talk.jsonl', 'New'], d);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^error: --save: talk\.jsonl exists already/m);
    expect(r.stderr).toMatch(/^hint: .*--continue talk\.jsonl.*--force/m);
    expect(chatServer.count()).toBe(before);
    expect(readFileSync(join(d, 'talk.jsonl'), 'utf8')).toBe(TWO);

    const forced = await run([...CHAT(), '--save', 'talk.jsonl', '--force', 'New'], d);
    expect(forced.exitCode, forced.stderr).toBe(0);
    expect(conversation(join(d, 'talk.jsonl')).map((m) => m.content)).toEqual(['New', 'answer to New']);
  });
});

describe('a --continue file that is not a conversation is never quoted', () => {
  it.each([
    ['a line of /etc/shadow', 'root:$6$SECRETHASH:19000:0:99999:7:::\n'],
    ['a JSON line with a secret role', '{"role":"SECRETHASH","content":"x"}\n'],
    ['a JSON line with a secret field', '{"role":"user","content":"x","SECRETHASH":1}\n'],
    ['a JSON string', '"SECRETHASH"\n'],
  ])('%s: the line number and what was expected, no content', async (_name, text) => {
    const d = fresh();
    writeFileSync(join(d, 'f'), text);
    const r = await run([...CHAT(), '--continue', 'f', 'Hi'], d);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^error: --continue f line 1[ :]/m);
    expect(r.stderr).not.toContain('SECRETHASH');
    expect(r.stderr).not.toContain('root');
  });
});

describe('a named pipe being read stops at once on a signal, and still works as an input', () => {
  const CASES = [
    {
      name: '--input-file',
      args: (f: string) => ['--provider', 'openai', '--url', chatServer.url, 'complete', '-m', 'm', '--input-file', f],
    },
    { name: '--parameters @', args: (f: string) => [...CHAT(), '--parameters', `@${f}`, 'Hi'] },
    { name: '--messages @', args: (f: string) => [...CHAT(), '--messages', `@${f}`] },
  ];
  it.each(CASES.flatMap((c) => (['SIGINT', 'SIGTERM'] as const).map((signal) => ({ ...c, signal }))))(
    '$name on a pipe nobody writes: $signal ends it',
    async ({ args, signal }) => {
      const d = fresh();
      const fifo = join(d, 'pipe');
      execFileSync('mkfifo', [fifo]);
      const child = spawn(args(fifo), d);
      // Opening the write end returns when the reader has the pipe open: the CLI is reading now.
      const writer = await open(fifo, 'w');
      const started = Date.now();
      child.kill(signal);
      const r = await child;
      await writer.close();
      expect(r.exitCode, String(r.stderr)).toBe(signal === 'SIGINT' ? 130 : 143);
      const took = Date.now() - started;
      figures.runs++;
      figures.signals++;
      figures.slowestSignalMs = Math.max(figures.slowestSignalMs, took);
      expect(took).toBeLessThan(5_000);
      expect(r.stderr).not.toMatch(/internal error/);
    },
  );

  it('a pipe with a writer (as <(…) gives) is read as before', async () => {
    const d = fresh();
    const fifo = join(d, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const child = spawn([...CHAT(), '--parameters', `@${fifo}`, 'Hi'], d);
    const writer = await open(fifo, 'w');
    await writer.write('{"max_tokens": 3}');
    await writer.close();
    const r = await child;
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(r.stdout).toBe('answer to Hi\n');
  });
});
