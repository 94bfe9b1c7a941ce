#!/usr/bin/env node
// The floor for bench/gateway.mjs: the least a Node gateway can do per stream — `node:http` in, `node:http` out over
// a keep-alive agent, each upstream chunk written to the client as it arrives, no parsing, no translation. textgen's
// `serve --upstream` does all of this plus reading the events, mapping them to the front dialect and writing them
// again, so its added latency and CPU per event are compared with this process's, measured in the same run.
// Usage: node bench/gateway-minimal.mjs UPSTREAM_URL; prints `{"url": …}` once listening.
import { Agent, createServer, request } from 'node:http';
import { reportCpuOnTerm } from './lib.mjs';

const upstream = new URL(process.argv[2]);
const agent = new Agent({ keepAlive: true, maxSockets: 256 });

const server = createServer((req, res) => {
  const body = [];
  req.on('data', (b) => body.push(b));
  req.on('end', () => {
    const payload = Buffer.concat(body);
    const out = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: req.url,
        method: req.method,
        agent,
        headers: { 'content-type': 'application/json', 'content-length': payload.length },
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, { 'content-type': up.headers['content-type'] ?? 'text/plain' });
        res.flushHeaders();
        up.on('data', (chunk) => res.write(chunk));
        up.on('end', () => res.end());
      },
    );
    out.on('error', () => res.destroy());
    out.end(payload);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })}\n`);
});
reportCpuOnTerm(async () => {
  server.closeAllConnections();
  agent.destroy();
  await new Promise((done) => server.close(done));
});
