#!/usr/bin/env node
// Baseline for the batch rows: the least a Node program does for a JSONL batch of completions — each line's prompt
// POSTed with node:http over keep-alive connections, at most CONCURRENCY in flight, each JSON answer parsed and one
// record per line written to stdout in input order (as `--batch` does). What any Node client pays per prompt before
// textgen's own work. Usage: batch-client.mjs URL FILE [CONCURRENCY]; URL is the service base (Azure routes).
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';

const base = process.argv[2];
const lines = readFileSync(process.argv[3], 'utf8').split('\n').filter(Boolean);
const concurrency = Number(process.argv[4] ?? 64);
const url = new URL(`${base.replace(/\/$/, '')}/openai/deployments/demo/completions?api-version=2024-10-21`);
const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
const records = new Array(lines.length);
let written = 0;
let next = 0;

function post(i) {
  const { input } = JSON.parse(lines[i]);
  const body = JSON.stringify({ prompt: input, max_tokens: 2 });
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'api-key': 'bench', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.setEncoding('utf8');
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => {
          if (res.statusCode !== 200) reject(new Error(`line ${i + 1}: HTTP ${res.statusCode}`));
          else resolve(JSON.parse(text));
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function worker() {
  while (next < lines.length) {
    const i = next++;
    const answer = await post(i);
    records[i] = `${JSON.stringify({ line: i + 1, result: { text: answer.choices[0].text } })}\n`;
    // In input order, as far as the lines are done.
    let out = '';
    while (written < lines.length && records[written] !== undefined) {
      out += records[written];
      records[written++] = null;
    }
    if (out !== '') process.stdout.write(out);
  }
}

await Promise.all(Array.from({ length: Math.min(concurrency, lines.length) }, worker));
agent.destroy();
