import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SSE_LINE_LENGTH } from '../../src/http/sse-parser.js';
import { makeHome, runInProcess } from '../helpers/run-cli.js';

/** A server that answers every request with `body`, cut into two writes at `split`. */
let server: Server;
let url: string;
let current: { body: Buffer; split: number } = { body: Buffer.alloc(0), split: 0 };
const home = makeHome();

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const { body, split } = current;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(body.subarray(0, split), () => {
        // The second half goes out on a later tick so the client sees two reads.
        setImmediate(() => res.end(body.subarray(split)));
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  home.cleanup();
});

const event = (text: string, extra = '') =>
  JSON.stringify({
    model_id: 'm',
    created_at: '2024-01-01T00:00:00Z',
    results: [
      { generated_text: text, generated_token_count: 1, input_token_count: 0, stop_reason: extra || 'not_finished' },
    ],
  });

const DELTAS = ['Héllo', ', 漢字', ' and 🙂', '!'];

const FIXTURES: Record<string, string> = {
  'LF, id/event/data, event: close': [
    `id: 1\nevent: message\ndata: ${event(DELTAS[0] as string)}\n\n`,
    `: keep-alive comment\n\n`,
    `id: 2\nevent: message\ndata:${event(DELTAS[1] as string)}\n\n`,
    `id: 3\nevent: message\ndata: ${event(DELTAS[2] as string)}\n\n`,
    `id: 4\nevent: message\ndata: ${event(DELTAS[3] as string, 'eos_token')}\n\n`,
    `event: close\ndata: {}\n\n`,
  ].join(''),
  'CRLF line ends, leading data: {}, [DONE] at the end': [
    `data: {}\r\n\r\n`,
    ...DELTAS.map(
      (d, i) => `id: ${i}\r\nevent: message\r\ndata: ${event(d, i === DELTAS.length - 1 ? 'max_tokens' : '')}\r\n\r\n`,
    ),
    `data: [DONE]\r\n\r\n`,
  ].join(''),
  // The last event says why it stopped: a stream that ends without saying so is a broken-off one (exit 6).
  'CR line ends and no final blank line': [
    ...DELTAS.map((d, i) => `event: message\rdata: ${event(d, i === DELTAS.length - 1 ? 'eos_token' : '')}\r\r`),
  ]
    .join('')
    .replace(/\r\r$/, ''),
};

/**
 * The byte offsets worth splitting a body at, end to end. The SSE parser's own tests (test/unit/sse-parser.test.ts)
 * split their fixtures at every byte in-process; here, where each split is a whole CLI run, the splits are those where
 * the layers above the parser can go wrong: the ends of the body; each line ending and the bytes either side of it
 * (a CRLF cut between its CR and LF, an event's blank line cut off from its last line); and every offset inside or
 * around a multi-byte UTF-8 character (a character cut between two reads).
 */
function splitPoints(body: Buffer): number[] {
  const points = new Set<number>([0, 1, body.length - 1, body.length]);
  for (let i = 0; i < body.length; i++) {
    const byte = body[i]!;
    if (byte === 0x0a || byte === 0x0d) for (const d of [-1, 0, 1, 2]) points.add(i + d);
    // A lead byte (11xxxxxx) starts a character of 2 to 4 bytes: split before it, inside it, and after it.
    if (byte >= 0xc0) {
      const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
      for (let d = 0; d <= length; d++) points.add(i + d);
    }
  }
  return [...points].filter((p) => p >= 0 && p <= body.length).sort((a, b) => a - b);
}

describe('streamed text equals the concatenated deltas wherever the bytes are split', () => {
  it('the split points cover every line ending ±1 and every byte inside each multi-byte character', () => {
    const body = Buffer.from('a\r\nb\n\nplain text é 漢 🙂\r\r', 'utf8');
    const points = splitPoints(body);
    const inside = (char: string) => {
      const at = body.indexOf(Buffer.from(char));
      return Array.from({ length: Buffer.byteLength(char) + 1 }, (_, d) => at + d);
    };
    for (const char of ['é', '漢', '🙂']) expect(points).toEqual(expect.arrayContaining(inside(char)));
    // The CR and LF of "a\r\n" at 1 and 2: before, between and after them.
    expect(points).toEqual(expect.arrayContaining([0, 1, 2, 3, 4]));
    expect(points).not.toContain(10); // inside the plain ASCII run: nothing to learn there
  });

  for (const [name, text] of Object.entries(FIXTURES)) {
    it(name, async () => {
      const body = Buffer.from(text, 'utf8');
      const expected = `${DELTAS.join('')}\n`;
      const points = splitPoints(body);
      for (const split of points) {
        current = { body, split };
        const r = await runInProcess(
          [
            '--url',
            url,
            'deployment',
            'text-generate',
            '--id-or-name',
            'd',
            '--input',
            'x',
            '--stream',
            '--retries',
            '0',
          ],
          { env: home.env },
        );
        if (r.stdout !== expected || r.exitCode !== 0) {
          throw new Error(
            `split at byte ${split}: exit ${r.exitCode}, stdout ${JSON.stringify(r.stdout)}, stderr ${r.stderr}`,
          );
        }
      }
      expect(body.length).toBeGreaterThan(100);
      // A sample, not a sweep (the parser tests sweep), yet every multi-byte character of the deltas is in it.
      expect(points.length).toBeLessThan(body.length / 2);
    });
  }

  it('an event: error mid-stream keeps the text before it and exits 6', async () => {
    const body = Buffer.from(
      `data: ${event('partial ')}\n\nevent: error\ndata: {"errors":[{"code":"internal_error","message":"model crashed"}],"trace":"t1"}\n\ndata: ${event('never')}\n\n`,
    );
    current = { body, split: 13 };
    const r = await runInProcess(
      ['--url', url, 'deployment', 'text-generate', '--id-or-name', 'd', '--input', 'x', '--stream'],
      { env: home.env },
    );
    expect(r.exitCode).toBe(6);
    expect(r.stdout).toBe('partial \n');
    expect(r.stderr).toBe('error: watsonx stream broke off: internal_error model crashed (trace t1)\n');
  });

  it('a line that never ends (past the 16 Mi limit) breaks the stream off: partial text kept, exit 6', async () => {
    const body = Buffer.concat([
      Buffer.from(`data: ${event('partial ')}\n\ndata: `),
      Buffer.alloc(MAX_SSE_LINE_LENGTH + 1, 'x'),
    ]);
    current = { body, split: 40 };
    const r = await runInProcess(
      ['--url', url, 'deployment', 'text-generate', '--id-or-name', 'd', '--input', 'x', '--stream', '--retries', '0'],
      { env: home.env },
    );
    expect(r.exitCode).toBe(6);
    expect(r.stdout).toBe('partial \n');
    expect(r.stderr).toContain(
      'stream broke off: the service sent a line longer than 16 Mi characters without a line break',
    );
  });

  it('a payload with a top-level errors array is a failure too', async () => {
    current = {
      body: Buffer.from(`data: ${event('a')}\n\ndata: {"errors":[{"code":"x","message":"boom"}]}\n\n`),
      split: 5,
    };
    const r = await runInProcess(
      ['--url', url, 'deployment', 'text-generate', '--id-or-name', 'd', '--input', 'x', '--stream', '-o', 'json'],
      { env: home.env },
    );
    expect(r.exitCode).toBe(6);
    const partial = JSON.parse(r.stdout);
    expect(partial.results[0]).toMatchObject({ generated_text: 'a', stop_reason: 'error' });
  });
});
