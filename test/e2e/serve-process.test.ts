/**
 * `textgen serve` as a process: the warning for a bind other machines can reach, and how it stops on SIGTERM —
 * streams in flight finish (up to 5 s), nothing new is accepted, exit 0; what had to be cut makes it exit 143.
 */
import { execa, type ResultPromise } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, baseEnv, makeHome } from '../helpers/run-cli.js';

const home = makeHome();
const children: ResultPromise[] = [];

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

/** Starts serve and resolves with its URL once it says it listens. */
async function serve(args: string[]): Promise<{ child: ResultPromise; url: string; stderr: () => string }> {
  const child = execa('node', [BIN, 'serve', '--port', '0', ...args], {
    env: { ...baseEnv(), CI: 'true', ...home.env },
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    timeout: 30_000,
    // execa would follow a kill() with SIGKILL after 5 s: the very drain under test.
    forceKillAfterDelay: false,
  });
  children.push(child);
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr?.on('data', (b: Buffer) => {
      stderr += b.toString('utf8');
      const m = /listening on (https?:\/\/\S+)/.exec(stderr);
      if (m) resolve(m[1]!.replace('0.0.0.0', '127.0.0.1'));
    });
    void child.then(() => reject(new Error(`serve ended before listening: ${stderr}`)));
  });
  return { child, url, stderr: () => stderr };
}

const completions = (url: string, body: Record<string, unknown>) =>
  fetch(`${url}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', prompt: 'Tell me a story', ...body }),
  });

describe('serve on a non-loopback address', () => {
  it('--host 0.0.0.0 without --require-auth warns on stderr; with it, no warning', async () => {
    const open = await serve(['--host', '0.0.0.0']);
    // Still served from this machine (a loopback Host).
    expect((await fetch(`${open.url}/v1/models`)).status).toBe(200);
    open.child.kill('SIGTERM');
    const warned = await open.child;
    expect(warned.exitCode).toBe(0);
    expect(String(warned.stderr)).toMatch(/^warning: textgen serve listens on 0\.0\.0\.0, .*without --require-auth/m);

    const guarded = await serve(['--host', '0.0.0.0', '--require-auth']);
    guarded.child.kill('SIGTERM');
    const r = await guarded.child;
    expect(r.exitCode).toBe(0);
    expect(String(r.stderr)).not.toMatch(/warning/);
  }, 30_000);

  it('the default bind (127.0.0.1) draws no warning', async () => {
    const local = await serve([]);
    local.child.kill('SIGTERM');
    const r = await local.child;
    expect(String(r.stderr)).not.toMatch(/warning/);
  }, 30_000);
});

describe('serve loads its tokenizer once listening', () => {
  it('in the background, before any request asks for it (-v says when), and the first request is answered', async () => {
    const started = await serve(['-v']);
    // No request yet: the load is serve's own, so the first requests do not stall on it (~150 ms of CPU).
    await expect.poll(started.stderr, { timeout: 10_000 }).toMatch(/^tokenizer cl100k_base loaded in \d+ ms$/m);
    const r = await completions(started.url, { max_tokens: 2 });
    expect(r.status).toBe(200);
    expect(((await r.json()) as { usage: { prompt_tokens: number } }).usage.prompt_tokens).toBeGreaterThan(0);
    started.child.kill('SIGTERM');
    expect((await started.child).exitCode).toBe(0);
  }, 30_000);
});

describe('serve stops on SIGTERM by draining', () => {
  it('a stream in flight finishes whole, new connections are refused, exit 0', async () => {
    const { child, url } = await serve(['--token-delay-ms', '25']);
    const res = await completions(url, { stream: true, max_tokens: 40 });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = decoder.decode((await reader.read()).value);
    child.kill('SIGTERM');
    // The stream goes on to its end marker.
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    expect(text).toContain('data: [DONE]');
    expect(text).toMatch(/"finish_reason":"(length|stop)"/);
    const r = await child;
    expect(r.exitCode).toBe(0);
    expect(String(r.stderr)).toMatch(/stopping; requests in flight get up to 5 s to finish/);
    expect(String(r.stderr)).toMatch(/^textgen serve: stopped$/m);
    await expect(fetch(`${url}/v1/models`)).rejects.toThrow();
  }, 30_000);

  it('a request still running after 5 s is cut, said on stderr, exit 143', async () => {
    const { child, url } = await serve(['--fault', 'hang']);
    const hanging = completions(url, { max_tokens: 3 }).catch((e: unknown) => e);
    // The hang fault holds the request: it has left the queue once the request took it.
    for (;;) {
      const queued = (await (await fetch(`${url}/__textgen/faults`)).json()) as { faults: unknown[] };
      if (queued.faults.length === 0) break;
    }
    const signalled = Date.now();
    child.kill('SIGTERM');
    const r = await child;
    expect(Date.now() - signalled).toBeGreaterThanOrEqual(4_500);
    expect(Date.now() - signalled).toBeLessThan(15_000);
    expect(r.exitCode).toBe(143);
    expect(String(r.stderr)).toMatch(/^warning: textgen serve: stopped; 1 request still running after 5 s was cut$/m);
    expect(await hanging).toBeInstanceOf(Error);
  }, 30_000);
});
