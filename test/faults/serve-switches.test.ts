/** `textgen serve --fault`, through the built binary: queued at start, visible and clearable over HTTP. */
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, makeHome, runBin } from '../helpers/run-cli.js';

const home = makeHome();
afterAll(() => home.cleanup());

/** Waits (at most 10 s) until serve's stderr matches; resolves with the match. */
function stderrMatch(child: ReturnType<typeof execa>, pattern: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(
      () => finish(new Error(`serve did not print ${pattern} within 10 s; stderr: ${seen}`)),
      10_000,
    );
    const onData = (chunk: Buffer): void => {
      seen += chunk.toString('utf8');
      const match = pattern.exec(seen);
      if (match) finish(match);
    };
    const onExit = (): void => finish(new Error(`serve exited; stderr: ${seen}`));
    function finish(result: RegExpExecArray | Error): void {
      clearTimeout(timer);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
      if (result instanceof Error) reject(result);
      else resolve(result);
    }
    child.stderr?.on('data', onData);
    child.on('exit', onExit);
  });
}

describe('textgen serve --fault', () => {
  it('queues every --fault at start, in order; the control endpoint lists, serves and clears them', async () => {
    const child = execa(
      'node',
      [
        BIN,
        'serve',
        '--port',
        '0',
        '--fault',
        'status:code=503,times=2',
        '--fault',
        'drop:after=1; busy:retry-after=1',
      ],
      {
        env: { ...home.env, CI: 'true' },
        reject: false,
        stdin: 'ignore',
        timeout: 20_000,
      },
    );
    try {
      const [, url, queued] = await stderrMatch(child, /listening on (\S+) .*\n.*faults queued: (.*)\n/);
      expect(queued).toBe('status:code=503,times=2; drop:after=1; busy:retry-after=1');
      const listed = (await (await fetch(`${url}/__textgen/faults`)).json()) as { faults: Array<{ spec: string }> };
      expect(listed.faults.map((f) => f.spec)).toEqual([
        'status:code=503,times=2',
        'drop:after=1',
        'busy:retry-after=1',
      ]);

      const r = await runBin(
        ['--url', url!, 'deployment', 'text-generate', '--id-or-name', 'demo', '--input', 'Hi', '--retries', '0'],
        { env: home.env, timeout: 15_000 },
      );
      expect(r.exitCode).toBe(4);
      expect(r.stderr).toMatch(/^error: watsonx returned HTTP 503 service_unavailable/);

      expect(await (await fetch(`${url}/__textgen/faults`, { method: 'DELETE' })).json()).toEqual({
        cleared: 3,
        faults: [],
      });
      const ok = await runBin(['--url', url!, 'deployment', 'text-generate', '--id-or-name', 'demo', '--input', 'Hi'], {
        env: home.env,
        timeout: 15_000,
      });
      expect(ok.exitCode).toBe(0);
    } finally {
      child.kill('SIGINT');
    }
    const done = await child;
    expect(done.exitCode).toBe(0);
  });

  it('survives a POST of 100 001 faults (it overflowed the stack) and goes on answering', async () => {
    const child = execa('node', [BIN, 'serve', '--port', '0'], {
      env: { ...home.env, CI: 'true' },
      reject: false,
      stdin: 'ignore',
      timeout: 30_000,
    });
    try {
      const [, url] = await stderrMatch(child, /listening on (\S+) /);
      const posted = await fetch(`${url}/__textgen/faults`, {
        method: 'POST',
        body: Array.from({ length: 100_001 }, () => 'latency:ms=1').join(';'),
      });
      expect(posted.status).toBe(201);
      const listed = (await (await fetch(`${url}/__textgen/faults`)).json()) as { faults: unknown[] };
      expect(listed.faults).toHaveLength(100_001);
      expect(await (await fetch(`${url}/__textgen/faults`, { method: 'DELETE' })).json()).toEqual({
        cleared: 100_001,
        faults: [],
      });
    } finally {
      child.kill('SIGINT');
    }
    expect((await child).exitCode).toBe(0);
  }, 60_000);

  it.each<[string, RegExp]>([
    [
      'latency:ms=99999999999999',
      /^error: --fault "latency:ms=99999999999999": fault "latency": ms must be at most 2147483647, got "99999999999999"$/m,
    ],
    [
      'latency:ms=3600001',
      /^error: --fault "latency:ms=3600001": fault "latency": ms must be at most 3600000 \(an hour\), got "3600001"; for a server that never answers use hang$/m,
    ],
    ['explode', /^error: --fault "explode": unknown fault kind "explode": expected one of latency, status/],
    [
      'status:code=200',
      /^error: --fault "status:code=200": fault "status": code must be an HTTP error status from 400 to 599, got "200"$/m,
    ],
  ])('a bad --fault %j is a usage error (exit 2) before anything listens', async (spec, message) => {
    const r = await runBin(['serve', '--port', '0', '--fault', spec], { env: home.env, timeout: 15_000 });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/listening/);
  });
});
