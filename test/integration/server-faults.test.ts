import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { SseParser } from '../../src/http/sse-parser.js';
import type { SseEvent } from '../../src/contract/http.js';
import { startServer, type RunningServer } from '../../src/emulator/core/index.js';
import {
  iamTokenResponseSchema,
  watsonxErrorSchema,
  watsonxStreamEventSchema,
  watsonxTextGenResponseSchema,
} from '../contract/watsonx-schemas.js';

const PLAIN = '/ml/v1/deployments/demo/text/generation?version=2024-05-01';
const STREAM = '/ml/v1/deployments/demo/text/generation_stream?version=2024-05-01';
const LONG = { input: 'Tell me a long story', parameters: { random_seed: 1, max_new_tokens: 12, min_new_tokens: 12 } };

let server: RunningServer;
beforeEach(async () => {
  server = await startServer({ requestLog: { max: 1000 } });
});
afterEach(async () => {
  await server.close();
});

function post(path: string, body: unknown = LONG, signal?: AbortSignal): Promise<Response> {
  return fetch(server.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: path === STREAM ? 'text/event-stream' : 'application/json' },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
}

/** Reads a stream body to its end, or until it breaks; keeps what arrived. */
async function readStream(res: Response): Promise<{ text: string; events: SseEvent[]; broken: boolean }> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  const events: SseEvent[] = [];
  let text = '';
  let broken = false;
  try {
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      const chunk = decoder.decode(r.value, { stream: true });
      text += chunk;
      events.push(...parser.push(chunk));
    }
    events.push(...parser.end());
  } catch {
    broken = true;
  }
  return { text, events, broken };
}

const messages = (events: SseEvent[]) => events.filter((e) => e.event === 'message');

describe('status faults', () => {
  test('a 429 with Retry-After and retry-after-ms, in the watsonx error shape, then normal service', async () => {
    server.faults.push({ kind: 'status', status: 429, retryAfter: '2', retryAfterMs: 1500 });
    const res = await post(PLAIN);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('2');
    expect(res.headers.get('retry-after-ms')).toBe('1500');
    expect(watsonxErrorSchema.parse(await res.json())).toMatchObject({
      status_code: 429,
      errors: [{ code: 'too_many_requests' }],
    });
    expect(server.faults).toEqual([]);
    expect((await post(PLAIN)).status).toBe(200);
  });

  test.each([500, 502, 503, 504])('a bare %i answers a watsonx error body', async (status) => {
    server.faults.push({ kind: 'status', status });
    const res = await post(PLAIN);
    expect(res.status).toBe(status);
    expect(watsonxErrorSchema.parse(await res.json()).status_code).toBe(status);
  });

  test('times counts down: two failures, then success', async () => {
    server.faults.push({ kind: 'status', status: 503, times: 2 });
    expect((await post(PLAIN)).status).toBe(503);
    expect(server.faults).toHaveLength(1);
    expect((await post(STREAM)).status).toBe(503);
    expect(server.faults).toHaveLength(0);
    expect((await post(PLAIN)).status).toBe(200);
  });

  test('faults apply in queue order', async () => {
    server.faults.push({ kind: 'status', status: 500 }, { kind: 'status', status: 502 });
    expect((await post(PLAIN)).status).toBe(500);
    expect((await post(PLAIN)).status).toBe(502);
  });

  test.each<[string, unknown, string, string]>([
    ['an object', { error: 'custom' }, 'application/json', '{"error":"custom"}'],
    ['a string', 'upstream exploded', 'text/plain', 'upstream exploded'],
  ])('a body given as %s is sent as it is', async (_, body, type, text) => {
    server.faults.push({ kind: 'status', status: 500, body });
    const res = await post(PLAIN);
    expect(res.headers.get('content-type')).toBe(type);
    expect(await res.text()).toBe(text);
  });

  test('faults leave token requests alone', async () => {
    server.faults.push({ kind: 'status', status: 500 });
    const res = await fetch(`${server.url}/identity/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=urn:ibm:params:oauth:grant-type:apikey&apikey=local-apikey',
    });
    iamTokenResponseSchema.parse(await res.json());
    expect(server.faults).toHaveLength(1);
  });
});

describe('timing faults', () => {
  test('delay holds the headers back, then answers normally', async () => {
    server.faults.push({ kind: 'delay', ms: 150 });
    const started = performance.now();
    const res = await post(PLAIN);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    watsonxTextGenResponseSchema.parse(await res.json());
  });

  test('hang never answers; the client gives up, the request is recorded, the next one is served', async () => {
    server.faults.push({ kind: 'hang' });
    await expect(post(PLAIN, LONG, AbortSignal.timeout(200))).rejects.toThrow();
    expect(server.requests).toHaveLength(1);
    expect((await post(PLAIN)).status).toBe(200);
  });

  test('close() ends a hanging request without waiting', async () => {
    server.faults.push({ kind: 'hang' });
    const pending = post(PLAIN);
    while (server.requests.length === 0) await new Promise((r) => setImmediate(r));
    await server.close();
    await expect(pending).rejects.toThrow();
  });
});

describe('connection faults', () => {
  test('drop without afterEvents destroys the socket before any header', async () => {
    server.faults.push({ kind: 'drop' });
    await expect(post(PLAIN)).rejects.toThrow(/fetch failed/);
    expect((await post(PLAIN)).status).toBe(200);
  });

  test('drop after 2 events: a 200 stream that breaks off after exactly two events', async () => {
    server.faults.push({ kind: 'drop', afterEvents: 2 });
    const res = await post(STREAM);
    expect(res.status).toBe(200);
    const { events, broken } = await readStream(res);
    expect(broken).toBe(true);
    expect(events).toHaveLength(2);
    for (const e of events) watsonxStreamEventSchema.parse(JSON.parse(e.data));
  });

  test('stream-error after 2 events: two messages, then event: error with a watsonx error body, then the end', async () => {
    server.faults.push({ kind: 'stream-error', afterEvents: 2 });
    const { events, broken } = await readStream(await post(STREAM));
    expect(broken).toBe(false);
    expect(events.map((e) => e.event)).toEqual(['message', 'message', 'error']);
    expect(watsonxErrorSchema.parse(JSON.parse(events[2]!.data)).status_code).toBe(500);
  });

  test('a stream fault waits for a stream: plain requests pass, the next stream gets it', async () => {
    server.faults.push({ kind: 'stream-error', afterEvents: 1 });
    expect((await post(PLAIN)).status).toBe(200);
    expect(server.faults).toHaveLength(1);
    const { events } = await readStream(await post(STREAM));
    expect(events.map((e) => e.event)).toEqual(['message', 'error']);
  });

  test('a stream shorter than afterEvents still ends with the fault', async () => {
    server.faults.push({ kind: 'stream-error', afterEvents: 100 });
    const { events } = await readStream(
      await post(STREAM, { input: 'Hi', parameters: { max_new_tokens: 2, min_new_tokens: 2 } }),
    );
    expect(events.map((e) => e.event)).toEqual(['message', 'message', 'message', 'error']);
  });

  test('stall after 1 event: the connection stays open and silent', async () => {
    server.faults.push({ kind: 'stall', afterEvents: 1 });
    const res = await post(STREAM);
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(messages(new SseParser().push(first))).toHaveLength(1);
    // Proving silence needs a deadline: nothing more may arrive within it.
    const next = await Promise.race([
      reader.read().then(() => 'data'),
      new Promise((r) => setTimeout(r, 300, 'silent')),
    ]);
    expect(next).toBe('silent');
    await reader.cancel();
  });

  test('malformed after 1 event: one data line that is not JSON, then the stream goes on to the end', async () => {
    server.faults.push({ kind: 'malformed', afterEvents: 1 });
    const { events, broken } = await readStream(await post(STREAM));
    expect(broken).toBe(false);
    const bad = events.filter((e) => {
      try {
        JSON.parse(e.data);
        return false;
      } catch {
        return true;
      }
    });
    expect(bad).toHaveLength(1);
    expect(events.indexOf(bad[0]!)).toBe(1);
    const good = events.filter((e) => !bad.includes(e)).map((e) => watsonxStreamEventSchema.parse(JSON.parse(e.data)));
    expect(good.at(-1)!.results[0]!.stop_reason).toBe('max_tokens');
    expect(good).toHaveLength(13);
  });
});

/** Control and error answers, read loosely: each assertion checks the shape it cares about. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
const json = async (res: Response): Promise<any> => res.json();

describe('the switches without code: X-Textgen-Fault, ?textgen_fault=, /__textgen/faults', () => {
  const control = (method: string, body?: string) =>
    fetch(`${server.url}/__textgen/faults`, { method, ...(body !== undefined ? { body } : {}) });

  test("a request's own header fault hits that request only, and wins over the queue", async () => {
    server.faults.push({ kind: 'status', status: 500 });
    const res = await fetch(server.url + PLAIN, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        'x-textgen-fault': 'status:code=429,retry-after=3,times=5',
      },
      body: JSON.stringify(LONG),
    });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('3');
    expect(watsonxErrorSchema.parse(await json(res)).errors[0]!.code).toBe('too_many_requests');
    expect(server.faults).toHaveLength(1);
    expect((await post(PLAIN)).status).toBe(500);
    expect((await post(PLAIN)).status).toBe(200);
  });

  test('the query parameter works the same', async () => {
    const res = await post(`${PLAIN}&textgen_fault=${encodeURIComponent('busy:retry-after-ms=20')}`);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after-ms')).toBe('20');
    expect((await json(res)).errors[0].message).toMatch(/busy/);
  });

  test.each<[string, string]>([
    ['status:code=99', 'X-Textgen-Fault: fault "status": code must be an HTTP error status from 400 to 599, got "99"'],
    ['hang;drop', 'X-Textgen-Fault takes one fault, got 2; queue several with POST /__textgen/faults'],
  ])("a bad header spec %j is a 400 in the protocol's shape", async (spec, message) => {
    const res = await fetch(server.url + PLAIN, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-textgen-fault': spec },
      body: JSON.stringify(LONG),
    });
    expect(res.status).toBe(400);
    expect(watsonxErrorSchema.parse(await json(res)).errors[0]).toMatchObject({ code: 'invalid_fault_spec', message });
  });

  test('POST queues, GET lists with what is left, DELETE clears; none of it is recorded', async () => {
    const queued = await control('POST', 'status:code=503,times=2; drop:after=1 ;busy:times=*');
    expect(queued.status).toBe(201);
    expect((await json(queued)).queued).toEqual(['status:code=503,times=2', 'drop:after=1', 'busy:times=*']);
    expect((await post(PLAIN)).status).toBe(503);
    const listed = await json(await control('GET'));
    expect(listed.faults.map((f: { spec: string; remaining: unknown }) => [f.spec, f.remaining])).toEqual([
      ['status:code=503,times=2', 1],
      ['drop:after=1', 1],
      ['busy:times=*', '*'],
    ]);
    expect(listed.faults[2]).toMatchObject({ kind: 'busy', times: '*' });
    expect(await json(await control('DELETE'))).toEqual({ cleared: 3, faults: [] });
    expect(server.faults).toEqual([]);
    expect(server.requests.map((r) => r.path)).toEqual(['/ml/v1/deployments/demo/text/generation']);
  });

  test.each<[string, string | undefined, number, RegExp]>([
    ['POST', 'drop:after=x', 400, /^fault "drop": after must be a whole number ≥ 0, got "x"$/],
    ['POST', '', 400, /^empty fault spec/],
    ['PUT', 'hang', 405, /use GET, POST or DELETE/],
  ])('%s %j → %i with a message', async (method, body, status, message) => {
    const res = await control(method, body);
    expect(res.status).toBe(status);
    expect((await json(res)).error).toMatch(message);
    expect(server.faults).toEqual([]);
  });

  test('an unknown control path is a 404 that names the right one', async () => {
    const res = await fetch(`${server.url}/__textgen/nope`);
    expect(res.status).toBe(404);
    expect((await json(res)).error).toMatch(/\/__textgen\/faults/);
  });

  test('times=* hits every matching request until cleared', async () => {
    await control('POST', 'status:code=502,times=*');
    for (let i = 0; i < 4; i++) expect((await post(PLAIN)).status).toBe(502);
    await control('DELETE');
    expect((await post(PLAIN)).status).toBe(200);
  });
});

describe('the faults added for the switches', () => {
  test.each<[string, string]>([
    ['text/html', '<!DOCTYPE html>'],
    ['application/json', '{"status":"ok"'],
    ['text/plain', 'OK'],
    ['application/xml', '<?xml'],
  ])("content-type %s: a 200 of that type whose body is not the protocol's", async (type, start) => {
    server.faults.push({ kind: 'content-type', type });
    const res = await post(STREAM);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(type);
    expect(await res.text()).toMatch(new RegExp(`^${start.replace(/[?.]/g, '\\$&')}`));
  });

  test('content-type application/octet-stream sends bytes that are not UTF-8', async () => {
    server.faults.push({ kind: 'content-type', type: 'application/octet-stream' });
    const bytes = new Uint8Array(await (await post(PLAIN)).arrayBuffer());
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(bytes)).toThrow();
    expect(bytes).toContain(0);
  });

  test('busy without retry keys is a bare 503 in the watsonx shape', async () => {
    server.faults.push({ kind: 'busy' });
    const res = await post(PLAIN);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBeNull();
    expect(watsonxErrorSchema.parse(await json(res)).errors[0]!.code).toBe('service_unavailable');
  });

  test.each([
    ['drop', true],
    ['stall', false],
  ] as const)('%s with plain: a non-stream answer stops after its headers and half its body', async (kind, broken) => {
    server.faults.push({ kind, afterEvents: 3, plain: true });
    const controller = new AbortController();
    const res = await post(PLAIN, LONG, controller.signal);
    expect(res.status).toBe(200);
    const length = Number(res.headers.get('content-length'));
    const reader = res.body!.getReader();
    let got = 0;
    let failed = false;
    try {
      // A stall sends no more: stop reading once half has come, rather than wait for a timeout.
      while (got < Math.floor(length / 2)) {
        const r = await reader.read();
        if (r.done) break;
        got += r.value.length;
      }
      if (broken) await reader.read();
    } catch {
      failed = true;
    }
    expect(got).toBe(Math.floor(length / 2));
    expect(failed).toBe(broken);
    controller.abort();
  });

  test('truncate after 2 events: the stream ends cleanly, with no last event', async () => {
    server.faults.push({ kind: 'truncate', afterEvents: 2 });
    const { events, broken } = await readStream(await post(STREAM));
    expect(broken).toBe(false);
    expect(events).toHaveLength(2);
    expect(events.map((e) => watsonxStreamEventSchema.parse(JSON.parse(e.data)).results[0]!.stop_reason)).toEqual([
      'not_finished',
      'not_finished',
    ]);
  });

  test('truncate with plain: a non-stream answer ends cleanly after half its body', async () => {
    server.faults.push({ kind: 'truncate', afterEvents: 0, plain: true });
    const res = await post(PLAIN);
    expect(res.headers.get('content-length')).toBeNull();
    const text = await res.text();
    expect(text.startsWith('{"model_id":')).toBe(true);
    expect(() => JSON.parse(text)).toThrow();
  });

  test('a plain drop fault waits for nothing: the next non-stream request takes it', async () => {
    server.faults.push({ kind: 'drop', afterEvents: 1, plain: true });
    await expect(post(PLAIN).then((r) => r.text())).rejects.toThrow();
    expect(server.faults).toEqual([]);
  });

  test('malformed as=long: one line of `bytes` filler, then the stream goes on to the end', async () => {
    server.faults.push({ kind: 'malformed', afterEvents: 2, as: 'long', bytes: 300_000 });
    const { events, broken } = await readStream(await post(STREAM));
    expect(broken).toBe(false);
    expect(events[2]!.data).toBe('x'.repeat(300_000));
    expect(events).toHaveLength(14);
  });

  test('malformed as=binary: one data line of non-UTF-8 bytes and NULs, no line break inside', async () => {
    server.faults.push({ kind: 'malformed', afterEvents: 1, as: 'binary' });
    const res = await post(STREAM);
    const bytes = Buffer.from(await res.arrayBuffer());
    const start = bytes.indexOf('\n\ndata: ') + 2;
    const line = bytes.subarray(start, bytes.indexOf('\n', start));
    expect(line.length).toBe('data: '.length + 64);
    expect(line.includes(0)).toBe(true);
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(line)).toThrow();
  });
});

describe("busy in each protocol's own words", () => {
  test.each<[string, string, unknown, number, unknown]>([
    ['watsonx', PLAIN, LONG, 503, { errors: [{ code: 'service_unavailable' }], status_code: 503 }],
    [
      'Aleph Alpha',
      '/complete',
      { model: 'luminous-base', prompt: 'Hi', maximum_tokens: 5 },
      503,
      { code: 'QUEUE_FULL' },
    ],
    [
      'Azure',
      '/openai/deployments/d/completions?api-version=2022-03-01-preview',
      { prompt: 'Hi', max_tokens: 5 },
      429,
      { error: { code: '429', type: 'requests' } },
    ],
    [
      'OpenAI',
      '/v1/completions',
      { model: 'm', prompt: 'Hi', max_tokens: 5 },
      503,
      { error: { type: 'server_error', code: null } },
    ],
    [
      'Open Inference',
      '/v2/models/demo/generate',
      { text_input: 'Hi', parameters: { max_tokens: 5 } },
      429,
      { error: 'Model is overloaded', error_type: 'overloaded' },
    ],
  ])('%s', async (_, path, body, status, shape) => {
    server.faults.push({ kind: 'busy', retryAfter: '1' });
    const res = await post(path, body);
    expect(res.status).toBe(status);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(await json(res)).toMatchObject(shape as Record<string, unknown>);
  });
});
