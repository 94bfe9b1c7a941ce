#!/usr/bin/env node
/**
 * The memory of `textgen serve` under a flood of requests (docs/reliability.md, "serve under hostile clients"):
 * starts the built server, sends N requests of SIZE bytes (half unauthenticated 401s, as a scanner would), and prints
 * its resident memory before and after, from /proc (Linux). `node bench/serve-memory.mjs [N] [SIZE]` after a build;
 * the serve log used to keep every request, so this grew with N (5 000 × 20 KB: about +200 MB; now flat).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';

const count = Number(process.argv[2] ?? 5000);
const size = Number(process.argv[3] ?? 20 * 1024);
const bin = fileURLToPath(new URL('../bin/textgen.js', import.meta.url));

function rssKb(pid, field) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`));
  return Number(/\d+/.exec(line ?? '')?.[0] ?? Number.NaN);
}

const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--require-auth'], {
  stdio: ['ignore', 'ignore', 'pipe'],
});
const url = await new Promise((resolve, reject) => {
  let err = '';
  child.stderr.on('data', (b) => {
    err += b;
    const m = /listening on (\S+)/.exec(err);
    if (m) resolve(new URL(m[1]));
  });
  child.on('exit', () => reject(new Error(err)));
});
const agent = new Agent({ keepAlive: true, maxSockets: 20 });
const text = 'x'.repeat(size);
const send = (i) =>
  new Promise((resolve, reject) => {
    const body =
      i % 2 === 0
        ? JSON.stringify({ model_id: 'm', project_id: 'p', input: text })
        : JSON.stringify({ model: 'm', prompt: text });
    const path = i % 2 === 0 ? '/ml/v1/text/generation?version=2024-05-01' : '/v1/completions';
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
const batch = async (from, n) => {
  for (let i = from; i < from + n; i += 100)
    await Promise.all(Array.from({ length: Math.min(100, from + n - i) }, (_, k) => send(i + k)));
};
await batch(0, 200);
const before = rssKb(child.pid, 'VmRSS');
await batch(200, count);
const after = rssKb(child.pid, 'VmRSS');
const peak = rssKb(child.pid, 'VmHWM');
agent.destroy();
child.kill('SIGTERM');
console.log(
  `serve memory: ${count} requests of ${size} bytes: RSS ${(before / 1024).toFixed(0)} MB → ${(after / 1024).toFixed(0)} MB (+${((after - before) / 1024).toFixed(0)} MB), peak ${(peak / 1024).toFixed(0)} MB`,
);
