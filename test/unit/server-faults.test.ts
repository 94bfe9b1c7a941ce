import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { SseParser, type SseEvent } from '../../src/http/sse-parser.js';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { iamTokenResponseSchema, watsonxErrorSchema, watsonxStreamEventSchema, watsonxTextGenResponseSchema } from '../contract/watsonx-schemas.js';

const PLAIN = '/ml/v1/deployments/demo/text/generation?version=2024-05-01';
const STREAM = '/ml/v1/deployments/demo/text/generation_stream?version=2024-05-01';
const LONG = { input: 'Tell me a long story', parameters: { random_seed: 1, max_new_tokens: 12, min_new_tokens: 12 } };

let server: RunningServer;
beforeEach(async () => {
  server = await startServer();
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
    expect(watsonxErrorSchema.parse(await res.json())).toMatchObject({ status_code: 429, errors: [{ code: 'too_many_requests' }] });
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
    const { events } = await readStream(await post(STREAM, { input: 'Hi', parameters: { max_new_tokens: 2, min_new_tokens: 2 } }));
    expect(events.map((e) => e.event)).toEqual(['message', 'message', 'message', 'error']);
  });

  test('stall after 1 event: the connection stays open and silent', async () => {
    server.faults.push({ kind: 'stall', afterEvents: 1 });
    const res = await post(STREAM);
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(messages(new SseParser().push(first))).toHaveLength(1);
    // Proving silence needs a deadline: nothing more may arrive within it.
    const next = await Promise.race([reader.read().then(() => 'data'), new Promise((r) => setTimeout(r, 300, 'silent'))]);
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
