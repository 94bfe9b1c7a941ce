import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeHome, runBin } from '../helpers/run-cli.js';

/*
 * A batch reuses its connections (src/http/node-transport.ts: keep-alive agents; the pool grows to the concurrency),
 * instead of opening one per request: through the built CLI, counted on the server side.
 */
const home = makeHome();
const dir = mkdtempSync(join(tmpdir(), 'textgen-batch-connections-'));
let server: Server;
let url = '';
let connections = 0;
let requests = 0;

const ANSWER = JSON.stringify({
  id: 'cmpl-test',
  object: 'text_completion',
  created: 1764460800,
  model: 'demo',
  choices: [{ text: ' ok.', index: 0, logprobs: null, finish_reason: 'stop' }],
  usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
});

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests += 1;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(ANSWER) });
      res.end(ANSWER);
    });
  });
  server.keepAliveTimeout = 60_000;
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  home.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

describe('batch connections', () => {
  it('300 lines at concurrency 8 go over at most 8 connections, every record in order', async () => {
    const file = join(dir, 'prompts.jsonl');
    writeFileSync(
      file,
      Array.from({ length: 300 }, (_, i) => `${JSON.stringify({ input: `prompt ${i}` })}\n`).join(''),
    );
    const r = await runBin(
      [
        '--provider',
        'azure-openai',
        '--url',
        url,
        '--api-key',
        'test-key',
        'deployment',
        'text-generate',
        '--id-or-name',
        'demo',
        '--batch',
        file,
        '--concurrency',
        '8',
      ],
      { env: home.env, timeout: 60_000 },
    );
    expect(r.stderr).toMatch(/^batch: 300 lines processed, 300 succe/);
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(300);
    expect(lines.map((l) => (JSON.parse(l) as { line: number }).line)).toEqual(
      Array.from({ length: 300 }, (_, i) => i + 1),
    );
    expect(requests).toBe(300);
    expect(connections).toBeGreaterThan(0);
    expect(connections).toBeLessThanOrEqual(8);
  }, 90_000);
});
