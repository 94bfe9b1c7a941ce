// Batch: `textgen deployment text-generate --batch FILE --concurrency 64`.
//  - throughput: BENCH_BATCH_LINES (10 000) prompts against the embedded server answering after 20 ms each, against
//    the ideal concurrency / latency (64 / 20 ms = 3 200 prompts/s);
//  - the same requests from bench/batch-client.mjs, a minimal node:http client (the CPU-per-prompt floor);
//  - memory: peak RSS of the CLI over a BENCH_MEMORY_LINES (1 000 000) line batch against bench/stream-server.mjs
//    answering at once with a two-token completion.
// Both servers run in their own processes. `serve` is warmed first by BENCH_BATCH_WARM_LINES (3 000) requests from
// the minimal client, as a server that has been running is: a fresh process spends its first second or so in V8's
// interpreter (~5× the CPU per request) and that is the server's start-up, not the client's batch; one row keeps a
// fresh server to show it. Server CPU is what it used during the measured run (/proc), without its start or warm-up.
// When the CLI has no --batch yet, the rows say "not available".
import { createWriteStream, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { bin, envNumber, processCpu, quick, root, runTimed, startHelper } from './lib.mjs';

const CONCURRENCY = 64;
const TIME = '/usr/bin/time';

export function batchAvailable() {
  const r = spawnSync(process.execPath, [bin, 'deployment', 'text-generate', '--help'], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  return r.status === 0 && r.stdout.includes('--batch');
}

async function writePrompts(path, count) {
  const out = createWriteStream(path);
  let buffer = '';
  for (let i = 1; i <= count; i++) {
    buffer += `{"input":"Prompt number ${i}: say ok."}\n`;
    if (buffer.length >= 1 << 16) {
      if (!out.write(buffer)) await once(out, 'drain');
      buffer = '';
    }
  }
  out.end(buffer);
  await once(out, 'finish');
}

const cliArgs = (url, file) => [
  bin,
  '--provider',
  'azure-openai',
  '--url',
  url,
  '--api-key',
  'bench',
  '-q',
  'deployment',
  'text-generate',
  '--id-or-name',
  'demo',
  '--parameters-max-new-tokens',
  '2',
  '--batch',
  file,
  '--concurrency',
  String(CONCURRENCY),
];

/**
 * Runs the CLI under /usr/bin/time -v when present (peak RSS and CPU time), else plainly (peak RSS then unknown).
 * CPU times say which side a shortfall against the ideal comes from: the CLI, or the server sharing the machine.
 */
async function runMeasured(args, opts) {
  if (existsSync(TIME)) {
    const r = await runTimed(TIME, ['-v', process.execPath, ...args], opts);
    const field = (name) => {
      const m = new RegExp(`${name}: ([0-9.]+)`).exec(r.stderr);
      return m ? Number(m[1]) : undefined;
    };
    const kb = field('Maximum resident set size \\(kbytes\\)');
    const user = field('User time \\(seconds\\)');
    const system = field('System time \\(seconds\\)');
    return {
      ...r,
      peakMb: kb === undefined ? undefined : kb / 1024,
      cpuMs: user === undefined || system === undefined ? undefined : (user + system) * 1000,
      how: '/usr/bin/time -v',
    };
  }
  return { ...(await runTimed(process.execPath, args, opts)), peakMb: undefined, cpuMs: undefined, how: 'unavailable' };
}

/**
 * One batch against a server answering after `latency` ms, compared with concurrency / latency: the embedded
 * server (`serve`), or bench/stream-server.mjs, which costs next to no CPU per request and so shows the CLI's own
 * ceiling on a machine whose cores the two share.
 */
async function throughput(file, lines, latency, server = 'serve', client = 'textgen', warm = undefined) {
  const delayed =
    server === 'serve'
      ? await startHelper(join(root, 'bench', 'serve-delay.mjs'), [], { BENCH_LATENCY_MS: String(latency) })
      : await startHelper(join(root, 'bench', 'stream-server.mjs'), [], {
          BENCH_EVENTS: '2',
          BENCH_DELAY_MS: String(latency),
        });
  let run;
  let serverReport;
  let serverCpu;
  try {
    if (warm !== undefined) await warmUp(delayed.url, warm);
    const args =
      client === 'textgen'
        ? cliArgs(delayed.url, file)
        : [join(root, 'bench', 'batch-client.mjs'), delayed.url, file, String(CONCURRENCY)];
    const before = processCpu(delayed.pid);
    run = await runMeasured(args, { countLines: true, timeoutMs: 600_000 });
    const after = processCpu(delayed.pid);
    if (before && after) serverCpu = after.user + after.system - before.user - before.system;
  } finally {
    serverReport = await delayed.stop();
  }
  if (run.code !== 0 || run.lines !== lines)
    throw new Error(`batch run: exit ${run.code}, ${run.lines}/${lines} lines; stderr: ${run.stderr.slice(-500)}`);
  const rate = lines / (run.ms / 1000);
  const ideal = CONCURRENCY / (latency / 1000);
  return {
    server,
    client,
    lines,
    latency,
    ms: run.ms,
    rate,
    ideal,
    ratio: rate / ideal,
    warmed: warm?.lines ?? 0,
    clientCpuMs: run.cpuMs,
    // Without /proc, the server's whole life (its start and warm-up included).
    serverCpuMs: serverCpu ?? serverReport?.cpuMs,
    connections: serverReport?.connections,
    peakMb: run.peakMb,
  };
}

/** Requests from the minimal client before the measured run, so that `serve` runs optimised code, as a running one does. */
async function warmUp(url, warm) {
  const r = await runTimed(
    process.execPath,
    [join(root, 'bench', 'batch-client.mjs'), url, warm.file, String(CONCURRENCY)],
    {
      countLines: true,
      timeoutMs: 120_000,
    },
  );
  if (r.code !== 0 || r.lines !== warm.lines)
    throw new Error(`warm-up: exit ${r.code}, ${r.lines}/${warm.lines} lines`);
}

export async function benchBatch() {
  if (!batchAvailable()) return { available: false };
  const dir = mkdtempSync(join(tmpdir(), 'textgen-bench-'));
  try {
    const lines = envNumber('BENCH_BATCH_LINES', quick ? 2_000 : 10_000);
    const file = join(dir, 'prompts.jsonl');
    await writePrompts(file, lines);
    const latency = envNumber('BENCH_LATENCY_MS', 20);
    const warmLines = envNumber('BENCH_BATCH_WARM_LINES', quick ? 1_000 : 3_000);
    const warm = { file: join(dir, 'warm.jsonl'), lines: warmLines };
    await writePrompts(warm.file, warmLines);
    const main = await throughput(file, lines, latency, 'serve', 'textgen', warm);
    // The same requests from bench/batch-client.mjs (node:http, keep-alive, one record per line in order): what a
    // Node client pays per prompt before any of textgen's own work.
    const nodeClient = await throughput(file, lines, latency, 'serve', 'node', warm);
    // A fresh `serve` (spawned, listening, no request yet): its start-up shows in the rate.
    const cold = await throughput(file, lines, latency, 'serve', 'textgen');
    const minimal = await throughput(file, lines, latency, 'minimal');
    // The same at ten times the latency: an ideal the machine's CPU can reach, so it shows whether the CLI keeps
    // 64 requests in flight, apart from what each request costs in CPU.
    const slowLines = Math.min(lines, 2_000);
    const slowFile = join(dir, 'slow.jsonl');
    await writePrompts(slowFile, slowLines);
    const slow = await throughput(
      slowFile,
      slowLines,
      envNumber('BENCH_SLOW_LATENCY_MS', 200),
      'serve',
      'textgen',
      warm,
    );

    const memoryLines = envNumber('BENCH_MEMORY_LINES', quick ? 100_000 : 1_000_000);
    const bigFile = join(dir, 'million.jsonl');
    await writePrompts(bigFile, memoryLines);
    const fast = await startHelper(join(root, 'bench', 'stream-server.mjs'), [], { BENCH_EVENTS: '2' });
    let mem;
    try {
      mem = await runMeasured(cliArgs(fast.url, bigFile), { countLines: true, timeoutMs: 1_800_000 });
    } finally {
      await fast.stop();
    }
    if (mem.code !== 0 || mem.lines !== memoryLines)
      throw new Error(
        `memory run: exit ${mem.code}, ${mem.lines}/${memoryLines} lines; stderr: ${mem.stderr.slice(-500)}`,
      );
    return {
      available: true,
      concurrency: CONCURRENCY,
      main,
      nodeClient,
      cold,
      minimal,
      slow,
      memoryLines,
      memoryMs: mem.ms,
      memoryRate: memoryLines / (mem.ms / 1000),
      peakMb: mem.peakMb,
      memoryHow: mem.how,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
