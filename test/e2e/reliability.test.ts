import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { runBin } from '../helpers/run-cli.js';
import { generationRequests } from '../helpers/wire.js';
import { useServer } from '../helpers/server-fixture.js';

const fixture = useServer();
const { home } = fixture;

const tg = (args: string[], url = fixture.server.url) =>
  runBin(['--url', url, 'deployment', 'text-generate', '--id-or-name', 'demo', '--input', 'Hi', ...args], {
    env: home.env,
  });

async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('retries and failures', () => {
  it('429 with Retry-After: 1 is waited out, then the answer arrives', async () => {
    fixture.server.faults.push({ kind: 'status', status: 429, retryAfter: '1' });
    const started = Date.now();
    const r = await tg([]);
    expect(r.exitCode).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(generationRequests(fixture.server.requests)).toHaveLength(2);
  });

  it("503 on every attempt → exit 4 after 1 + --retries attempts, with the service's message", async () => {
    fixture.server.faults.push({ kind: 'status', status: 503, times: 3 });
    const r = await tg(['--retries', '2']);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(/^error: watsonx returned HTTP 503/m);
    expect(r.stdout).toBe('');
    expect(generationRequests(fixture.server.requests)).toHaveLength(3);
  });

  it('a 400 from the service is not retried → exit 4 with code and trace', async () => {
    fixture.server.faults.push({
      kind: 'status',
      status: 400,
      body: { errors: [{ code: 'invalid_input_argument', message: 'bad thing' }], trace: 'abc123', status_code: 400 },
    });
    const r = await tg([]);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toBe('error: watsonx returned HTTP 400 invalid_input_argument: bad thing (trace abc123)\n');
    expect(generationRequests(fixture.server.requests)).toHaveLength(1);
  });

  it('connection refused → exit 5 with one clear line', async () => {
    const port = await closedPort();
    const r = await tg(['--retries', '0'], `http://127.0.0.1:${port}`);
    expect(r.exitCode).toBe(5);
    expect(r.stderr).toMatch(/connection refused/i);
    expect(r.stderr.split('\n').filter(Boolean).length).toBeLessThanOrEqual(2);
  });

  it('no answer within --timeout → exit 5', async () => {
    fixture.server.faults.push({ kind: 'hang' });
    const r = await tg(['--timeout', '500', '--retries', '0']);
    expect(r.exitCode).toBe(5);
    expect(r.stderr).toMatch(/--timeout/);
  });

  it('a connection dropped mid-stream → partial text, exit 6', async () => {
    fixture.server.faults.push({ kind: 'drop', afterEvents: 4 });
    const r = await tg(['--stream', '--parameters-max-new-tokens', '40']);
    expect(r.exitCode).toBe(6);
    expect(r.stdout.length).toBeGreaterThan(0);
  });

  it('a stream that goes silent for --timeout is aborted → exit 6', async () => {
    fixture.server.faults.push({ kind: 'stall', afterEvents: 3 });
    const r = await tg(['--stream', '--timeout', '500', '--parameters-max-new-tokens', '40']);
    expect(r.exitCode).toBe(6);
    expect(r.stdout.length).toBeGreaterThan(0);
  });
});
