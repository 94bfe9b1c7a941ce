#!/usr/bin/env node
// The embedded server (`textgen serve`, from dist/) in its own process, answering every generation request after
// BENCH_LATENCY_MS (default 20) — the `delay` fault, repeated forever. Prints `{"url": …}` once listening.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { reportCpuOnTerm, root } from './lib.mjs';

const latency = Number(process.env.BENCH_LATENCY_MS ?? 20);
const { startServer } = await import(pathToFileURL(join(root, 'dist', 'src', 'server', 'index.js')).href);
const server = await startServer();
server.faults.push({ kind: 'delay', ms: latency, times: Number.POSITIVE_INFINITY });
// The server keeps every request for tests; a bench run does not need them and would only grow the heap.
setInterval(() => server.requests.splice(0), 1000).unref();
process.stdout.write(`${JSON.stringify({ url: server.url, latency })}\n`);
reportCpuOnTerm(() => server.close());
