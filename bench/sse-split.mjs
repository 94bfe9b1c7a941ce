#!/usr/bin/env node
// Baseline: the least a Node program can do with the stream — read it and split it into SSE lines, counting the
// `data:` lines; no JSON, no output per event. It writes one line when the first event arrives (so the bench can
// time from there, as it does for the other clients) and the count at the end. Usage: sse-split.mjs URL
import { request } from 'node:http';

const url = new URL(process.argv[2]);
const req = request(
  url,
  { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' } },
  (res) => {
    res.setEncoding('utf8');
    let rest = '';
    let data = 0;
    res.on('data', (chunk) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop();
      for (const line of lines) {
        if (!line.startsWith('data:')) continue;
        if (data === 0) process.stdout.write('first\n');
        data += 1;
      }
    });
    res.on('end', () => {
      if (rest.startsWith('data:')) data += 1;
      process.stdout.write(`${data}\n`);
    });
  },
);
req.end(JSON.stringify({ prompt: 'hi', stream: true }));
