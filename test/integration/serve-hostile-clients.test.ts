/**
 * `serve` against hostile clients (docs/reliability.md, "serve under hostile clients"): what a web page, a flood of
 * requests or a crafted body could do to the embedded server, each answered in the protocol's own words.
 */
import { request as httpRequest, Agent } from 'node:http';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createDeflateRaw } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startServer, type RunningServer } from '../../src/emulator/core/index.js';
import { allProtocols } from '../../src/emulator/core/protocols.js';
import { zip } from '../helpers/aleph-alpha-task-fixtures.js';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: unknown;
}

/** A request through node:http, which (unlike fetch) lets the test set Host and send any body it likes. */
function raw(
  server: RunningServer,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer; agent?: Agent } = {},
): Promise<Raw> {
  const url = new URL(path, server.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: options.method ?? 'POST', headers: options.headers ?? {}, agent: options.agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

const JSON_TYPE = { 'content-type': 'application/json' };

/** One route per protocol, with what makes it otherwise valid, and how its error body names the code. */
const ROUTES: Array<{
  protocol: string;
  path: string;
  body: unknown;
  code: (json: unknown) => unknown;
}> = [
  {
    protocol: 'watsonx',
    path: '/ml/v1/text/generation?version=2024-05-01',
    body: { model_id: 'ibm/granite-13b-instruct-v2', input: 'Hi', project_id: 'p' },
    code: (j) => (j as { errors: Array<{ code: string }> }).errors[0]?.code,
  },
  {
    protocol: 'azure-openai',
    path: '/openai/deployments/gpt/completions?api-version=2024-06-01',
    body: { prompt: 'Hi', max_tokens: 3 },
    code: (j) => (j as { error: { code: string } }).error.code,
  },
  {
    protocol: 'openai',
    path: '/v1/completions',
    body: { model: 'gpt', prompt: 'Hi', max_tokens: 3 },
    code: (j) => (j as { error: { code: string } }).error.code,
  },
  {
    protocol: 'aleph-alpha',
    path: '/complete',
    body: { model: 'luminous-base', prompt: 'Hi', maximum_tokens: 3 },
    code: (j) => (j as { code: string }).code,
  },
  {
    protocol: 'open-inference',
    path: '/v2/models/local/generate',
    body: { text_input: 'Hi', parameters: { max_tokens: 3 } },
    // Open Inference errors carry a message only.
    code: (j) => typeof (j as { error: string }).error,
  },
];

/** The figures docs/reliability.md quotes ("serve under hostile clients"), printed as one line. */
const figures = { refused: 0, deepRoutes: 0, bombMs: 0, bombRssMb: 0, floodHeapMb: 0 };

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server.close();
  console.log(
    `serve under hostile clients: ${figures.refused} foreign or mistyped requests refused in the protocol's words, ` +
      `${figures.deepRoutes} POST routes answered 400 to 200 000 levels, a 512 MB docx bomb refused in ${figures.bombMs} ms ` +
      `(+${figures.bombRssMb} MB RSS), 5 000 requests of 20 KB: heap +${figures.floodHeapMb} MB, 0 kept`,
  );
});

describe('cross-origin pages and DNS rebinding', () => {
  test.each(ROUTES)('$protocol: a valid request with JSON and the own Host is served', async ({ path, body }) => {
    const res = await raw(server, path, { headers: JSON_TYPE, body: JSON.stringify(body) });
    expect(res.status, res.text).toBe(200);
  });

  test.each(ROUTES)('$protocol: a foreign Host (DNS rebinding) is refused, 403 in its words', async (route) => {
    const res = await raw(server, route.path, {
      headers: { ...JSON_TYPE, host: `attacker.example:${new URL(server.url).port}` },
      body: JSON.stringify(route.body),
    });
    expect(res.status).toBe(403);
    figures.refused++;
    expect(route.code(res.json)).toMatch(/^(forbidden_host|FORBIDDEN_HOST|string)$/);
    expect(res.text).toContain('Host');
  });

  test.each(ROUTES)('$protocol: another Origin is refused, 403 in its words', async (route) => {
    const res = await raw(server, route.path, {
      headers: { ...JSON_TYPE, origin: 'https://evil.example' },
      body: JSON.stringify(route.body),
    });
    expect(res.status).toBe(403);
    figures.refused++;
    expect(route.code(res.json)).toMatch(/^(forbidden_origin|FORBIDDEN_ORIGIN|string)$/);
  });

  test.each(ROUTES)('$protocol: a text/plain body (a "simple" request) is 415 in its words', async (route) => {
    const res = await raw(server, route.path, {
      headers: { 'content-type': 'text/plain;charset=UTF-8' },
      body: JSON.stringify(route.body),
    });
    expect(res.status).toBe(415);
    figures.refused++;
    expect(route.code(res.json)).toMatch(/^(unsupported_media_type|UNSUPPORTED_MEDIA_TYPE|string)$/);
  });

  test.each([
    ['no Content-Type', {}],
    ['form', { 'content-type': 'application/x-www-form-urlencoded' }],
    ['multipart', { 'content-type': 'multipart/form-data; boundary=x' }],
  ])('a JSON route refuses a body sent as %s', async (_name, headers) => {
    const res = await raw(server, '/v1/completions', { headers, body: '{"model":"m","prompt":"Hi"}' });
    expect(res.status).toBe(415);
  });

  test.each([
    ['localhost', (port: string) => `localhost:${port}`],
    ['127.0.0.1', (port: string) => `127.0.0.1:${port}`],
    ['another loopback address', (port: string) => `127.1.2.3:${port}`],
    ['[::1]', (port: string) => `[::1]:${port}`],
  ])('Host %s with the server’s port is accepted, and its own Origin too', async (_name, host) => {
    const port = new URL(server.url).port;
    const res = await raw(server, '/v1/completions', {
      headers: { ...JSON_TYPE, host: host(port), origin: `http://${host(port)}` },
      body: JSON.stringify({ model: 'gpt', prompt: 'Hi', max_tokens: 2 }),
    });
    expect(res.status, res.text).toBe(200);
  });

  test('a loopback Host with another port (a reverse proxy that keeps the client’s Host) is accepted', async () => {
    const res = await raw(server, '/v1/models', { method: 'GET', headers: { host: 'localhost:1' } });
    expect(res.status).toBe(200);
  });

  test('an Origin of this host on another port (another local web app) is refused', async () => {
    const port = new URL(server.url).port;
    const res = await raw(server, '/v1/models', {
      method: 'GET',
      headers: { host: `localhost:${port}`, origin: 'http://localhost:3000' },
    });
    expect(res.status).toBe(403);
  });

  test('+json media types are JSON; the IAM token route takes its form body', async () => {
    const json = await raw(server, '/v1/completions', {
      headers: { 'content-type': 'application/vnd.textgen+json; charset=utf-8' },
      body: JSON.stringify({ model: 'gpt', prompt: 'Hi', max_tokens: 2 }),
    });
    expect(json.status, json.text).toBe(200);
    const form = await raw(server, '/identity/token', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=urn:ibm:params:oauth:grant-type:apikey&apikey=local-apikey',
    });
    expect(form.status, form.text).toBe(200);
  });

  test('a page cannot queue faults: a foreign Origin on /__textgen/faults is refused and nothing is queued', async () => {
    const res = await raw(server, '/__textgen/faults', {
      headers: { 'content-type': 'text/plain', origin: 'http://evil.example' },
      body: 'status:code=500,times=*',
    });
    expect(res.status).toBe(403);
    expect(server.faults).toHaveLength(0);
  });
});

describe('deeply nested bodies', () => {
  const deep = (levels: number) => `{"prompt":${'['.repeat(levels)}${']'.repeat(levels)}}`;

  test('every POST route answers 400 (never 500) to a body 200 000 levels deep', async () => {
    const protocols = await allProtocols();
    const routes = protocols
      .flatMap((p) => p.routes)
      .filter((r) => r.method === 'POST' && (r.body ?? 'json') === 'json');
    expect(routes.length).toBeGreaterThan(15);
    const body = deep(200_000);
    for (const route of routes) {
      const path = route.pattern.replace(/:[a-z_]+/gi, 'x');
      const res = await raw(server, `${path}?version=2024-05-01&api-version=2024-06-01`, { headers: JSON_TYPE, body });
      expect(res.status, `${route.pattern}: ${res.text.slice(0, 200)}`).toBe(400);
      expect(res.text).toContain('nests deeper than 256 levels');
      figures.deepRoutes++;
    }
  });

  test('a body nested 200 levels still reaches the route', async () => {
    const res = await raw(server, '/v1/completions', { headers: JSON_TYPE, body: deep(200) });
    expect(res.status).toBe(400);
    expect(res.text).not.toContain('nests deeper');
  });
});

/** A .docx whose word/document.xml deflates `bytes` of repeated XML into a few hundred KB. */
async function docxBomb(bytes: number): Promise<Buffer> {
  const deflate = createDeflateRaw({ level: 9 });
  const chunks: Buffer[] = [];
  deflate.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<void>((resolve) => deflate.on('end', () => resolve()));
  const block = Buffer.from('<w:p><w:r><w:t>aaaa</w:t></w:r></w:p>'.repeat(28_000));
  for (let written = 0; written < bytes; written += block.length) {
    if (!deflate.write(block)) await new Promise((resolve) => deflate.once('drain', resolve));
  }
  deflate.end();
  await done;
  const deflated = Buffer.concat(chunks);
  // The fixture zips stored entries; mark this one deflated (method 8) in its local and central headers.
  const archive = zip({ 'word/document.xml': deflated });
  archive.writeUInt16LE(8, 8);
  archive.writeUInt16LE(8, archive.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])) + 10);
  return archive;
}

describe('a zip bomb in an Aleph Alpha document', () => {
  test('/qa and /summarize answer 413 PAYLOAD_TOO_LARGE without inflating it, and other requests go on', async () => {
    const bomb = (await docxBomb(512 * 1024 * 1024)).toString('base64');
    expect(bomb.length).toBeLessThan(2 * 1024 * 1024);
    const before = process.memoryUsage().rss;
    const started = Date.now();
    const qa = raw(server, '/qa', {
      headers: JSON_TYPE,
      body: JSON.stringify({ query: 'Who?', documents: [{ docx: bomb }, { docx: bomb }] }),
    });
    const summarize = raw(server, '/summarize', {
      headers: JSON_TYPE,
      body: JSON.stringify({ document: { docx: bomb } }),
    });
    const other = raw(server, '/v1/models', { method: 'GET' });
    const [a, b, c] = await Promise.all([qa, summarize, other]);
    figures.bombMs = Date.now() - started;
    figures.bombRssMb = Math.max(0, Math.round((process.memoryUsage().rss - before) / 2 ** 20));
    expect(c.status).toBe(200);
    for (const res of [a, b]) {
      expect(res.status, res.text).toBe(413);
      expect(res.json).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
      expect((res.json as { error: string }).error).toMatch(
        /docx' (unpacks to more than 100 times|would take the request's Word text past)/,
      );
    }
    // Inflating it whole took 512 MB; the bound stops it within a few MiB per document.
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 1024 * 1024);
  });
});

describe('the request log', () => {
  /** A gc() for this test: vitest's workers do not start with --expose-gc. */
  function collect(): void {
    setFlagsFromString('--expose-gc');
    (runInNewContext('gc') as () => void)();
  }

  test('serve keeps no request: 5 000 requests of 20 KB (401s among them) grow the heap by less than 50 MB', async () => {
    const guarded = await startServer({ requireAuth: true });
    const agent = new Agent({ keepAlive: true, maxSockets: 20 });
    try {
      const text = 'x'.repeat(20 * 1024);
      const send = (i: number) =>
        i % 2 === 0
          ? raw(guarded, '/ml/v1/text/generation?version=2024-05-01', {
              headers: JSON_TYPE,
              body: JSON.stringify({ model_id: 'm', project_id: 'p', input: text }),
              agent,
            })
          : raw(guarded, '/v1/completions', {
              headers: JSON_TYPE,
              body: JSON.stringify({ model: 'm', prompt: text }),
              agent,
            });
      await Promise.all(Array.from({ length: 100 }, (_, i) => send(i)));
      collect();
      const before = getHeapStatistics().used_heap_size;
      for (let round = 0; round < 50; round++) {
        const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => send(i)));
        expect(answers.every((a) => a.status === 401)).toBe(true);
      }
      collect();
      const grown = getHeapStatistics().used_heap_size - before;
      figures.floodHeapMb = Math.round(grown / 2 ** 20);
      expect(guarded.requests).toHaveLength(0);
      expect(grown).toBeLessThan(50 * 1024 * 1024);
    } finally {
      agent.destroy();
      await guarded.close();
    }
  }, 120_000);

  test('a test that asks gets a ring of its size, long bodies cut', async () => {
    const recording = await startServer({ requestLog: { max: 3, maxBodyLength: 32 } });
    try {
      for (const prompt of ['a', 'b', 'c', 'd', 'e'.repeat(100)])
        await raw(recording, '/v1/completions', { headers: JSON_TYPE, body: JSON.stringify({ model: 'm', prompt }) });
      expect(recording.requests).toHaveLength(3);
      expect(recording.requests.map((r) => r.body.length)).toEqual([26, 26, 32]);
      expect(recording.requests[0]!.json).toEqual({ model: 'm', prompt: 'c' });
      expect(recording.requests[2]).toMatchObject({ bodyTruncated: true });
      expect(recording.requests[2]!.json).toBeUndefined();
    } finally {
      await recording.close();
    }
  });
});
