#!/usr/bin/env node
// The upstream of bench/gateway.mjs, in its own process: an OpenAI-compatible `/v1/chat/completions` that streams
// BENCH_GATEWAY_EVENTS chunks (one token each), the first after BENCH_GATEWAY_GAP_MS and each next one that much
// later, then the finish chunk and `data: [DONE]`. Each event goes out in its own write, as a model server sends
// tokens. A plain request gets the whole answer at once. Prints `{"url": …}` once listening.
import { createServer } from 'node:http';
import { reportCpuOnTerm } from './lib.mjs';

const events = Number(process.env.BENCH_GATEWAY_EVENTS ?? 20);
const gapMs = Number(process.env.BENCH_GATEWAY_GAP_MS ?? 20);

const chunk = (_i, body) =>
  `data: ${JSON.stringify({
    id: 'chatcmpl-bench',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'bench',
    choices: [{ index: 0, delta: body, finish_reason: null }],
  })}\n\n`;

const server = createServer((req, res) => {
  let text = '';
  req.on('data', (b) => (text += b));
  req.on('end', () => {
    const body = text === '' ? {} : JSON.parse(text);
    if (body.stream !== true) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'chatcmpl-bench',
          object: 'chat.completion',
          created: 1,
          model: 'bench',
          choices: [
            { index: 0, message: { role: 'assistant', content: 'tok '.repeat(events) }, finish_reason: 'stop' },
          ],
          usage: { prompt_tokens: 3, completion_tokens: events, total_tokens: events + 3 },
        }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    let sent = 0;
    const timer = setInterval(() => {
      if (res.destroyed) return clearInterval(timer);
      if (sent < events) {
        // The wall-clock time of this write, for the client's one-way latency (bench/gateway.mjs).
        const content = `t${sent}@${(performance.timeOrigin + performance.now()).toFixed(3)} `;
        res.write(chunk(sent, sent === 0 ? { role: 'assistant', content } : { content }));
        sent++;
        return;
      }
      clearInterval(timer);
      res.write(
        `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1, model: 'bench', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: events, total_tokens: events + 3 } })}\n\n`,
      );
      res.end('data: [DONE]\n\n');
    }, gapMs);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}`, events, gapMs })}\n`);
});
reportCpuOnTerm(async () => {
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
});
