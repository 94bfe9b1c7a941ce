#!/usr/bin/env node
// A bench-only HTTP server, run as its own process so that its work never competes with the client's event loop.
// Every completions request (Azure `/openai/deployments/{d}/completions` or OpenAI `/v1/completions`, any method)
// gets one of two answers:
//   - `"stream": true` (or a GET, for curl without a body): the SAME pre-built bytes every time — BENCH_EVENTS
//     Azure/OpenAI `text_completion` events, one token each, then `data: [DONE]`. The first event goes out alone
//     (so time-to-first-token is not hidden behind a big write); the rest in BENCH_CHUNK-byte writes that do not
//     respect event boundaries, as TCP would deliver them.
//   - otherwise a short non-streamed `text_completion` (for batch runs: a two-token answer, after BENCH_DELAY_MS).
// A watsonx text generation (`/ml/v1/…/text/generation`, bearer token, no IAM exchange) gets the same short answer in
// watsonx's shape, so the start-up rows can measure a whole watsonx request.
// Prints `{"url": "http://127.0.0.1:PORT", "events": N, "textBytes": N}` on stdout once listening.
import { createServer } from 'node:http';
import { reportCpuOnTerm } from './lib.mjs';

const events = Number(process.env.BENCH_EVENTS ?? 100_000);
const chunkBytes = Number(process.env.BENCH_CHUNK ?? 16_384);
/** Wait before answering a non-streamed request (a batch run against a server that costs next to no CPU). */
const delayMs = Number(process.env.BENCH_DELAY_MS ?? 0);

const WORDS = [
  'the',
  'quick',
  'brown',
  'fox',
  'jumps',
  'over',
  'a',
  'lazy',
  'dog',
  'and',
  'then',
  'rests',
  'in',
  'warm',
  'sun',
  '.',
];

function buildStream() {
  const parts = [];
  let textBytes = 0;
  for (let i = 0; i < events; i++) {
    const last = i === events - 1;
    const text = ` ${WORDS[i % WORDS.length]}`;
    textBytes += Buffer.byteLength(text);
    const body = {
      id: 'cmpl-bench0000000000000000000000',
      object: 'text_completion',
      created: 1764460800,
      model: 'demo',
      choices: [{ text, index: 0, logprobs: null, finish_reason: last ? 'length' : null }],
    };
    parts.push(`data: ${JSON.stringify(body)}\n\n`);
  }
  parts.push('data: [DONE]\n\n');
  return { first: Buffer.from(parts[0]), rest: Buffer.from(parts.slice(1).join('')), textBytes };
}

const stream = buildStream();

const whole = Buffer.from(
  JSON.stringify({
    id: 'cmpl-bench0000000000000000000000',
    object: 'text_completion',
    created: 1764460800,
    model: 'demo',
    choices: [{ text: ' ok.', index: 0, logprobs: null, finish_reason: 'stop' }],
    usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
  }),
);

const wholeWatsonx = Buffer.from(
  JSON.stringify({
    model_id: 'demo',
    created_at: '2025-11-30T00:00:00.000Z',
    results: [{ generated_text: ' ok.', generated_token_count: 2, input_token_count: 3, stop_reason: 'eos_token' }],
  }),
);

async function sendStream(res) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write(stream.first);
  for (let at = 0; at < stream.rest.length; at += chunkBytes) {
    if (res.destroyed) return;
    const ok = res.write(stream.rest.subarray(at, at + chunkBytes));
    if (!ok) await new Promise((resolve) => res.once('drain', resolve));
  }
  res.end();
}

const server = createServer((req, res) => {
  const pieces = [];
  req.on('data', (piece) => pieces.push(piece));
  req.on('end', () => {
    let wantsStream = req.method === 'GET';
    if (!wantsStream) {
      try {
        wantsStream = JSON.parse(Buffer.concat(pieces).toString('utf8')).stream === true;
      } catch {
        wantsStream = false;
      }
    }
    if (wantsStream) {
      void sendStream(res);
    } else {
      const body = req.url.startsWith('/ml/v1/') ? wholeWatsonx : whole;
      const answer = () => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
        res.end(body);
      };
      if (delayMs > 0) setTimeout(answer, delayMs);
      else answer();
    }
  });
});
server.keepAliveTimeout = 60_000;
// How many connections the clients opened: a batch client that reuses its sockets opens about as many as its concurrency.
let connections = 0;
server.on('connection', () => {
  connections += 1;
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}`, events, textBytes: stream.textBytes })}\n`);
});
reportCpuOnTerm(
  async () => {},
  () => ({ connections }),
);
