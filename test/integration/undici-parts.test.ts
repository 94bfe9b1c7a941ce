import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { afterAll, describe, expect, it } from 'vitest';
import { Agent, EnvHttpProxyAgent, request } from '../../src/http/undici/undici-parts.js';

const require = createRequire(import.meta.url);

describe('undici parts loaded by their own files', () => {
  it('are the very classes the package index exports', () => {
    const undici = require('undici') as typeof import('undici');
    expect(Agent).toBe(undici.Agent);
    expect(EnvHttpProxyAgent).toBe(undici.EnvHttpProxyAgent);
  });

  const seen: Array<{ method?: string; url?: string; body: string }> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, body });
      res.writeHead(201, { 'content-type': 'application/json', 'x-echo': req.headers['x-test'] ?? '' });
      res.end('{"ok":true}');
    });
  });
  const agent = new Agent();
  afterAll(async () => {
    await agent.close();
    await new Promise<void>((done) => server.close(() => done()));
  });

  it('send a request with path, query, headers and body through the given dispatcher', async () => {
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
    const { port } = server.address() as { port: number };
    const res = await request(`http://127.0.0.1:${port}/ml/v1/text/generation?version=2024-05-01`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-test': 'yes' },
      body: '{"input":"Hi"}',
      dispatcher: agent,
    });
    expect(res.statusCode).toBe(201);
    expect(res.headers['x-echo']).toBe('yes');
    expect(await res.body.json()).toEqual({ ok: true });
    expect(seen).toEqual([
      { method: 'POST', url: '/ml/v1/text/generation?version=2024-05-01', body: '{"input":"Hi"}' },
    ]);
  });
});
