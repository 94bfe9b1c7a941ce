/**
 * The cassette transport (src/cassette/transport.ts) around the real node transport, against a scripted server that
 * writes its events in odd chunks and at chosen times: a replay gives each event back as one chunk, with the bytes
 * and framing recorded, at the recorded pace within 10 % under `--replay-timing recorded`; a stream the server cut
 * is replayed as cut; an entry that is a symbolic link is never followed.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import { mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cassetteTransport, type CassetteSettings } from '../../src/cassette/transport.js';
import { DEFAULT_MATCH } from '../../src/cassette/match.js';
import { parseEntry } from '../../src/cassette/entry.js';
import { createNodeTransport } from '../../src/http/node-transport.js';
import { KnownSecrets } from '../../src/contract/redact.js';
import type { Transport } from '../../src/http/transport.js';

const dir = mkdtempSync(join(tmpdir(), 'textgen-cassette-'));
let server: Server;
let base = '';

/** What the scripted server writes for a path: pieces, each after a wait (ms) timed by the server itself. */
const SCRIPTS: Record<string, Array<[number, string]>> = {
  '/framing': [
    [0, 'data: {"a":1}\n'],
    [5, '\n: keep-alive comment\n\nevent: delta\r\ndata: {"b":'],
    [5, '2}\r\n\r\ndata: one\ndata: two\n\ndata: é'],
    [5, 'x\n\n'],
  ],
  '/paced': [
    [0, 'data: 1\n\n'],
    [400, 'data: 2\n\n'],
    [800, 'data: 3\n\n'],
    [400, 'data: 4\n\n'],
  ],
};

function play(res: ServerResponse, script: Array<[number, string]>, cut: boolean): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', date: new Date().toUTCString(), 'x-request-id': 'r-1' });
  res.flushHeaders();
  let i = 0;
  const next = (): void => {
    if (i >= script.length) {
      if (cut)
        setTimeout(() => res.socket?.destroy(), 20); // after the last piece is on its way
      else res.end();
      return;
    }
    const [wait, text] = script[i++]!;
    setTimeout(() => {
      res.write(text);
      next();
    }, wait);
  };
  next();
}

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path === '/cut')
        play(
          res,
          [
            [0, 'data: 1\n\n'],
            [5, 'data: 2\n\n'],
          ],
          true,
        );
      else play(res, SCRIPTS[path] ?? [], false);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

const settings = (mode: 'record' | 'replay', timing: 'none' | 'recorded' = 'none'): CassetteSettings => ({
  mode,
  dir,
  protocol: 'openai',
  match: DEFAULT_MATCH,
  timing,
  onMiss: 'fail',
  run: 'test',
});

interface Received {
  status: number;
  chunks: Array<{ at: number; data: Buffer }>;
  error?: string;
}

async function call(transport: Transport, path: string): Promise<Received> {
  const res = await transport.request(new URL(`${base}${path}`), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer zzzz' },
    body: JSON.stringify({ prompt: path, stream: true }),
  });
  const started = performance.now();
  const chunks: Received['chunks'] = [];
  const body = res.body as unknown as NodeJS.ReadableStream;
  return new Promise((resolve) => {
    body.on('data', (data: Buffer) => chunks.push({ at: performance.now() - started, data: Buffer.from(data) }));
    body.on('end', () => resolve({ status: res.statusCode, chunks }));
    body.on('error', (e: NodeJS.ErrnoException) =>
      resolve({ status: res.statusCode, chunks, error: e.code ?? e.message }),
    );
  });
}

async function record(path: string): Promise<Received> {
  const real = await createNodeTransport({ timeoutMs: 10_000, connectTimeoutMs: 5_000 });
  const recorder = cassetteTransport(async () => real, settings('record'), new KnownSecrets(['zzzz']));
  const got = await call(recorder, path);
  await recorder.destroy();
  await real.destroy();
  return got;
}

/** A replayer whose inner transport fails the test if it is ever asked for. */
function replayer(timing: 'none' | 'recorded' = 'none'): Transport {
  return cassetteTransport(
    async () => {
      throw new Error('a replay asked for the network');
    },
    settings('replay', timing),
    new KnownSecrets(),
  );
}

function entryFile(path: string): string {
  const slug = `openai-post-${path.slice(1)}-`;
  const name = readdirSync(dir).find((n) => n.startsWith(slug));
  if (!name) throw new Error(`no entry for ${path}`);
  return join(dir, name);
}

describe('a stream through the cassette', () => {
  it('is recorded event by event with its framing, and replayed one event per chunk, the same bytes', async () => {
    const live = await record('/framing');
    const wire = Buffer.concat(live.chunks.map((c) => c.data));
    const got = await call(replayer(), '/framing');
    expect(got.status).toBe(200);
    expect(got.error).toBeUndefined();
    expect(Buffer.concat(got.chunks.map((c) => c.data))).toEqual(wire);
    expect(got.chunks.map((c) => c.data.toString('utf8'))).toEqual([
      'data: {"a":1}\n\n',
      ': keep-alive comment\n\n',
      'event: delta\r\ndata: {"b":2}\r\n\r\n',
      'data: one\ndata: two\n\n',
      'data: éx\n\n',
    ]);
    const { readFileSync } = await import('node:fs');
    const text = readFileSync(entryFile('/framing'), 'utf8');
    // Volatile and credential headers are not kept; the volatile date and request id neither.
    expect(text).not.toMatch(/authorization|zzzz|x-request-id|"date"/);
  });

  it('is replayed at its recorded pace (gaps within 10 %) with timing recorded, at once without', async () => {
    await record('/paced');
    const { readFileSync } = await import('node:fs');
    const entry = parseEntry(readFileSync(entryFile('/paced'), 'utf8'), 'paced.jsonl');
    if (entry.kind !== 'stream') throw new Error('a stream expected');
    const recordedGaps = entry.events.slice(1).map((e, i) => e.t - entry.events[i]!.t);
    // The server's own gaps were 400, 800, 400 ms.
    for (const [i, gap] of [400, 800, 400].entries()) expect(recordedGaps[i]).toBeGreaterThanOrEqual(gap * 0.9);

    const paced = await call(replayer('recorded'), '/paced');
    expect(paced.chunks).toHaveLength(4);
    const gaps = paced.chunks.slice(1).map((c, i) => c.at - paced.chunks[i]!.at);
    for (const [i, gap] of gaps.entries()) {
      expect(gap, `gap ${i + 1}`).toBeGreaterThanOrEqual(recordedGaps[i]! * 0.9);
      expect(gap, `gap ${i + 1}`).toBeLessThanOrEqual(recordedGaps[i]! * 1.1);
    }

    const fast = await call(replayer('none'), '/paced');
    expect(fast.chunks.map((c) => c.data.toString())).toEqual(paced.chunks.map((c) => c.data.toString()));
    expect(fast.chunks.at(-1)!.at).toBeLessThan(200);
  });

  it('that the server cut is recorded as cut and replayed as a cut after the same events', async () => {
    const live = await record('/cut');
    expect(live.error).toBeDefined();
    expect(Buffer.concat(live.chunks.map((c) => c.data)).toString()).toBe('data: 1\n\ndata: 2\n\n');
    const got = await call(replayer(), '/cut');
    expect(got.chunks.map((c) => c.data.toString())).toEqual(['data: 1\n\n', 'data: 2\n\n']);
    expect(got.error).toBe('ECONNRESET');
  });

  it('an entry that is a symbolic link is never followed', async () => {
    const outside = join(dir, '..', `textgen-cassette-outside-${process.pid}.json`);
    writeFileSync(outside, 'not a cassette');
    try {
      const file = entryFile('/framing');
      rmSync(file);
      symlinkSync(outside, file);
      await expect(call(replayer(), '/framing')).rejects.toThrow(
        /is not a regular file \(a cassette never follows links\)/,
      );
    } finally {
      rmSync(outside, { force: true });
    }
  });
});
