/**
 * `tokenize --local` against a service that hands out a tokenizer file whose Split pattern backtracks for ever:
 * `(\w+\s?)*$` took 25 s at 100% CPU on a nine-word prompt, deaf to Ctrl-C and SIGTERM, and the file was cached so
 * every later run hung too. Now the pattern never runs: exit 4, nothing cached, a planted cache entry removed.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { dirname } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../src/emulator/core/index.js';
import { tokenizerCacheFile } from '../../src/flows/tokenizer-cache.js';
import { BIN, baseEnv, makeHome, runBin } from '../helpers/run-cli.js';

const NINE_WORDS = 'one two three four five six seven eight nine!';
const home = makeHome();
let hostile: Server;
let url: string;
let asked = 0;
/** When set, the next tokenizer request is held until the test lets it go. */
let hold: ((release: () => void) => void) | undefined;

beforeAll(async () => {
  // A real byte-level tokenizer file (the embedded server's), its pre-tokenizer swapped for the hostile pattern.
  const local = await startServer();
  const file = (await (await fetch(`${local.url}/models/luminous-base/tokenizer`)).json()) as Record<string, unknown>;
  await local.close();
  file.pre_tokenizer = {
    type: 'Sequence',
    pretokenizers: [
      { type: 'Split', pattern: { Regex: '(\\w+\\s?)*$' }, behavior: 'Isolated', invert: false },
      { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false },
    ],
  };
  const body = JSON.stringify(file);
  hostile = createServer((_req, res) => {
    asked++;
    const answer = () => res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    if (hold) {
      const waiting = hold;
      hold = undefined;
      waiting(answer);
    } else answer();
  });
  await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve));
  const address = hostile.address() as { port: number };
  url = `http://127.0.0.1:${address.port}`;
});

afterAll(async () => {
  hostile.closeAllConnections();
  await new Promise((resolve) => hostile.close(resolve));
  home.cleanup();
});

const args = () => ['--provider', 'aleph-alpha', '--url', url, '--token', 't', 'tokenize', '-m', 'luminous-base'];

describe('tokenize --local with a hostile split pattern', () => {
  it('is exit 4 within seconds, one error line, and the file is not cached', async () => {
    const before = asked;
    const started = Date.now();
    const r = await runBin([...args(), '--local', NINE_WORDS], { env: home.env, timeout: 15_000 });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(r.exitCode).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^error: .*Split pre-tokenizer pattern that is not one of the public patterns/);
    expect(
      r.stderr
        .trim()
        .split('\n')
        .filter((l) => !l.startsWith('hint:')),
    ).toHaveLength(1);
    expect(asked - before).toBe(1);
    expect(existsSync(tokenizerCacheFile(home.env, url, 'luminous-base'))).toBe(false);
  }, 30_000);

  it('a hostile file an earlier version cached is removed, not run: exit 4, and it is gone', async () => {
    const cached = tokenizerCacheFile(home.env, url, 'luminous-base');
    mkdirSync(dirname(cached), { recursive: true });
    const planted = await (await fetch(`${url}/models/luminous-base/tokenizer`)).text();
    writeFileSync(cached, planted, { mode: 0o600 });
    const r = await runBin([...args(), '--local', NINE_WORDS], { env: home.env, timeout: 15_000 });
    expect(r.exitCode).toBe(4);
    expect(existsSync(cached)).toBe(false);
  }, 30_000);

  it('Ctrl-C as the file arrives is honoured: it ends within seconds (before, the regex held it deaf to signals)', async () => {
    let release: (() => void) | undefined;
    const fetched = new Promise<void>((resolve) => {
      hold = (answer) => {
        release = answer;
        resolve();
      };
    });
    const child = execa('node', [BIN, ...args(), '--local', NINE_WORDS], {
      env: { ...baseEnv(), CI: 'true', ...home.env },
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
      timeout: 15_000,
    });
    await fetched;
    release?.();
    child.kill('SIGINT');
    const signalled = Date.now();
    const r = await child;
    expect(r.timedOut).toBe(false);
    // Whichever it saw first: the unusable file (4) or Ctrl-C (130); never a hang, never a crash.
    expect([4, 130]).toContain(r.exitCode);
    expect(Date.now() - signalled).toBeLessThan(5_000);
  }, 30_000);
});
