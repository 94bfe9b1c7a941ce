#!/usr/bin/env node
// The embedded server (the code of `textgen serve`) in its own process, answering every generation request after
// BENCH_LATENCY_MS (default 20) — the `delay` fault, repeated forever. Prints `{"url": …}` once listening.
// dist/ holds only the CLI's bundles (scripts/bundle.mjs), so the server module is bundled here, for this process,
// under node_modules/.cache (inside the package, so that what stays outside the bundle, gpt-tokenizer, resolves).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { reportCpuOnTerm, root } from './lib.mjs';

const latency = Number(process.env.BENCH_LATENCY_MS ?? 20);
mkdirSync(join(root, 'node_modules', '.cache'), { recursive: true });
const dir = mkdtempSync(join(root, 'node_modules', '.cache', 'textgen-bench-server-'));
const outfile = join(dir, 'server.mjs');
await build({
  absWorkingDir: root,
  entryPoints: ['src/emulator/core/index.ts'],
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  outfile,
  external: ['typescript', 'gpt-tokenizer', 'node-llama-cpp'],
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
const { startServer } = await import(pathToFileURL(outfile).href);
// As `textgen serve` starts it: the tokenizer loads in the background once listening.
const server = await startServer({ preloadTokenizer: true });
server.faults.push({ kind: 'delay', ms: latency, times: Number.POSITIVE_INFINITY });
// The server keeps every request for tests; a bench run does not need them and would only grow the heap.
setInterval(() => server.requests.splice(0), 1000).unref();
process.stdout.write(`${JSON.stringify({ url: server.url, latency })}\n`);
reportCpuOnTerm(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});
