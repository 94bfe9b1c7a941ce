#!/usr/bin/env node
// Baseline: the least a Node program does for one completion — a node:http POST, the JSON answer parsed, its text
// printed. What any Node client pays before textgen's own work. Usage: http-client.mjs URL [--stream]
// (--stream: the answer is an SSE stream; the text of its data events is printed).
import { request } from 'node:http';

const url = new URL(process.argv[2]);
const stream = process.argv[3] === '--stream';
const req = request(
  url,
  { method: 'POST', headers: { 'content-type': 'application/json', 'api-key': 'bench' } },
  (res) => {
    res.setEncoding('utf8');
    let body = '';
    res.on('data', (chunk) => (body += chunk));
    res.on('end', () => {
      if (res.statusCode !== 200) {
        process.stderr.write(`HTTP ${res.statusCode}\n`);
        process.exitCode = 1;
        return;
      }
      const texts = stream
        ? body
            .split('\n')
            .filter((l) => l.startsWith('data: {'))
            .map((l) => JSON.parse(l.slice(6)).choices[0].text)
        : [JSON.parse(body).choices[0].text];
      process.stdout.write(`${texts.join('')}\n`);
    });
  },
);
req.end(JSON.stringify({ prompt: 'Hello', max_tokens: 1, stream }));
