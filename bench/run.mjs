#!/usr/bin/env node
// `npm run bench`: cold start, streaming throughput, time to first token, batch throughput and memory. Every
// figure is a ratio against a baseline measured in the same run. Prints the table and writes it to
// bench/results.local.md (untracked); `npm run bench -- --write-results` writes the tracked bench/results.md.
// Every measured process runs with a clean environment (lib.mjs cleanEnv). No verdict (met / not met) is printed
// when other processes used the CPU before or during any group of rows (quiet.mjs, BENCH_BUSY_CORES): the figures
// say so instead.
// Knobs (docs/performance.md): BENCH_QUICK=1 (smaller sizes, under a minute or two), BENCH_ONLY=cold,stream,batch,
// BENCH_RUNS, BENCH_EVENTS, BENCH_STREAM_RUNS, BENCH_CHUNK, BENCH_BATCH_LINES, BENCH_BATCH_WARM_LINES,
// BENCH_LATENCY_MS, BENCH_MEMORY_LINES, BENCH_OUT (another results file, e.g. to keep a "before" run),
// BENCH_LLAMA_TOKENS, BENCH_LLAMA_RUNS,
// BENCH_GATEWAY_STREAMS, BENCH_GATEWAY_ROUNDS, BENCH_GATEWAY_EVENTS, BENCH_GATEWAY_GAP_MS.
import { writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { benchBatch } from './batch.mjs';
import { benchColdStart } from './cold-start.mjs';
import { benchGateway } from './gateway.mjs';
import { benchLlama } from './llama.mjs';
import { quick, removedEnvNames, root } from './lib.mjs';
import { decideQuiet, measuredGroup } from './quiet.mjs';
import { benchStreaming } from './streaming.mjs';

const only = new Set((process.env.BENCH_ONLY ?? 'cold,stream,batch,gateway,llama').split(',').map((s) => s.trim()));
const started = Date.now();
const n = (x, digits = 0) =>
  x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const cores = availableParallelism();
/**
 * Other processes' CPU, in cores, from which the machine counts as busy (default: a quarter of the cores). The load
 * average cannot decide it: the bench's own servers and clients raise it. BENCH_BUSY_LOAD is the former name.
 */
const busyCores = Number(process.env.BENCH_BUSY_CORES ?? process.env.BENCH_BUSY_LOAD ?? cores / 4);
const loadAtStart = loadavg();
// Verdicts are written as rows are made and taken back at the end when any group's figures say "busy".
const verdict = (ok) => (ok ? 'met' : '**not met**');
/** Other processes' CPU before and during each group of rows (quiet.mjs). */
const groups = [];
const group = async (name, run) => {
  const { result, figures } = await measuredGroup(name, run, { loadavg });
  groups.push(figures);
  return result;
};
const resultsPath =
  process.env.BENCH_OUT ??
  join(root, 'bench', process.argv.includes('--write-results') ? 'results.md' : 'results.local.md');

const out = [
  '# Benchmark results',
  '',
  `${new Date().toISOString()} · node ${process.version} · ${availableParallelism()} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}) · ${quick ? 'BENCH_QUICK=1' : 'full sizes'}`,
  '',
  // Other work on the machine slows every client alike, so ratios hold up better than absolute figures; say how busy it was.
  `Load average at start: ${loadAtStart.map((l) => l.toFixed(2)).join(', ')} (not used for the verdict: the bench's own processes raise it; see the end).`,
  '',
  `Clean environment for every measured process: ${removedEnvNames().length === 0 ? 'nothing to remove' : `removed ${removedEnvNames().join(', ')}`} (NODE_EXTRA_CA_CERTS alone adds ~30 ms to every Node start).`,
  '',
];

if (only.has('cold')) {
  const cold = await group('start-up', benchColdStart);
  const x = (v) => (v === undefined ? '–' : `${v.toFixed(2)}×`);
  out.push(
    `## Start-up (whole process, spawn to exit; medians of ${cold.runs} paired rounds)`,
    '',
    'Each ratio is the median, over the rounds, of the case against the baseline run in the same round.',
    '',
    '| case | median ms | ratio to `node -e 0` | ratio to `node:http` client | ratio to `curl` | target (to `node -e 0`) | |',
    '|---|---:|---:|---:|---:|---|---|',
    ...cold.baselines.map(
      (r) => `| ${r.name} (baseline) | ${n(r.ms, 1)} | ${x(r.vsNode)} | ${x(r.vsHttp)} | ${x(r.vsCurl)} | | |`,
    ),
    ...cold.rows.map(
      (r) =>
        `| ${r.name} | ${n(r.ms, 1)} | ${x(r.vsNode)} | ${x(r.vsHttp)} | ${x(r.vsCurl)} | ${r.target} | ${r.target ? verdict(r.ok) : ''} |`,
    ),
    '',
  );
}

if (only.has('stream')) {
  const s = await group('streaming', benchStreaming);
  const baseName = s.curlMissing ? 'node split' : 'curl';
  out.push(
    `## Streaming ${n(s.events)} events (median of ${s.runs} runs, server writes ${n(s.chunkBytes)}-byte chunks)`,
    '',
    ...(s.curlMissing ? ['curl is not installed: the node line splitter is the baseline.', ''] : []),
    `| client | whole run ms | first byte ms | last byte → exit ms | tokens/s (first → last byte) | ratio to ${baseName} | ratio to SDK | target | |`,
    '|---|---:|---:|---:|---:|---:|---:|---|---|',
    ...s.throughput.map((r) => {
      const ok = r.key !== 'textgen' ? '' : verdict(r.rate >= s.sdkRate);
      return `| ${r.name} | ${n(r.wholeMs)} | ${n(r.firstByteMs, 1)} | ${n(r.exitMs)} | ${n(r.rate)} | ${r.vsBase.toFixed(2)}× | ${r.vsSdk.toFixed(2)}× | ${r.target} | ${ok} |`;
    }),
    '',
    // No target against curl: it only moves bytes, and a bare Node line splitter reaches well under half its rate.
    s.cpu === undefined
      ? 'CPU time per streamed token: not measured (/usr/bin/time is not installed).'
      : `CPU time per streamed token (textgen, user + system, ${n(s.events)} events against one, median of ${s.cpu.runs} runs each): ${n(s.cpu.perTokenUs, 2)} µs (${n(s.cpu.bigMs)} ms against ${n(s.cpu.smallMs)} ms), i.e. one core keeps up with ${n(1e6 / s.cpu.perTokenUs)} tokens/s; no service streams within orders of magnitude of that.`,
    '',
    '## Time to first token (spawn → first byte on stdout, same stream)',
    '',
    `| client | ${s.ttft.baseName} ms | client ms | added over ${s.ttft.baseName} ms | ratio |`,
    '|---|---:|---:|---:|---:|',
    ...s.ttft.rows.map(
      (r) => `| ${r.name} | ${n(s.ttft.baseMs, 1)} | ${n(r.ms, 1)} | ${n(r.addedMs, 1)} | ${r.ratio.toFixed(2)}× |`,
    ),
    '',
  );
}

if (only.has('batch')) {
  const b = await group('batch', benchBatch);
  out.push('## Batch (`deployment text-generate --batch`, concurrency 64)', '');
  if (!b.available) {
    out.push(
      '| case | result |',
      '|---|---|',
      '| throughput vs ideal | not available (this build has no --batch) |',
      '| peak memory, 1 000 000 lines | not available (this build has no --batch) |',
      '',
    );
  } else {
    const where = (t) =>
      t.server !== 'serve' ? 'minimal server' : t.warmed > 0 ? '`serve` (running)' : '`serve`, a fresh process';
    const row = (t, target) =>
      `| ${n(t.lines)} prompts, ${t.latency} ms per request, ${where(t)}${t.client === 'node' ? ', minimal `node:http` client (baseline)' : ''} | ${n(t.rate)} prompts/s (${n(t.ms / 1000, 1)} s) | ideal ${n(t.ideal)} prompts/s | ${t.ratio.toFixed(2)}× | ${target} | ${target ? verdict(t.ratio >= 0.8) : ''} |`;
    const cpu = (t) =>
      `${n(t.lines)} prompts at ${t.latency} ms (${where(t)}${t.client === 'node' ? ', minimal client' : ''}): ${t.clientCpuMs === undefined ? '?' : n(t.clientCpuMs / 1000, 1)} s of CPU in the ${t.client === 'node' ? 'client' : 'CLI'} (peak RSS ${t.peakMb === undefined ? '?' : `${n(t.peakMb)} MB`}), ${t.serverCpuMs === undefined ? '?' : n(t.serverCpuMs / 1000, 1)} s in the server${t.connections === undefined ? '' : ` (${n(t.connections)} connections opened)`}, over ${n(t.ms / 1000, 1)} s.`;
    out.push(
      '| case | figure | baseline | ratio | target | |',
      '|---|---:|---:|---:|---|---|',
      row(b.main, '≥ 0.8×'),
      ...(b.nodeClient ? [row(b.nodeClient, '')] : []),
      ...(b.cold ? [row(b.cold, '')] : []),
      row(b.minimal, ''),
      row(b.slow, ''),
      `| peak RSS, ${n(b.memoryLines)} lines, no delay | ${b.peakMb === undefined ? 'not measured' : `${n(b.peakMb)} MB`} | | | < 200 MB | ${b.peakMb === undefined ? '' : verdict(b.peakMb < 200)} |`,
      '',
      `\`serve\` (running): the server took ${n(b.main.warmed)} requests from the minimal client just before the measured run, as a server that has been running has; a fresh process runs its first second or so in V8's interpreter, at several times the CPU per request, which the fresh-process row shows.`,
      '',
      `CPU time (${availableParallelism()} cores, shared by the CLI and the server; the server's during the measured run only): ${cpu(b.main)} ${b.nodeClient ? `${cpu(b.nodeClient)} ` : ''}${b.cold ? `${cpu(b.cold)} ` : ''}${cpu(b.minimal)} ${cpu(b.slow)}`,
      '',
      ...(b.main.clientCpuMs === undefined
        ? []
        : [
            `CLI CPU per prompt (start-up included), \`serve\` at ${b.main.latency} ms: ${n((b.main.clientCpuMs * 1000) / b.main.lines)} µs (target ≤ 150 µs: ${verdict((b.main.clientCpuMs * 1000) / b.main.lines <= 150)})${b.nodeClient?.clientCpuMs === undefined ? '' : `; the minimal \`node:http\` client, same requests, same run: ${n((b.nodeClient.clientCpuMs * 1000) / b.nodeClient.lines)} µs (textgen ${(b.main.clientCpuMs / b.nodeClient.clientCpuMs).toFixed(2)}× of it)`}.`,
            '',
          ]),
      `The memory run took ${n(b.memoryMs / 1000, 1)} s (${n(b.memoryRate)} prompts/s); RSS via ${b.memoryHow}.`,
      '',
    );
  }
}

if (only.has('gateway')) {
  const g = await benchGateway();
  const ms = (v) => n(v, 2);
  out.push(
    `## \`serve --upstream\` overhead (${n(g.streams)} concurrent chat streams, ${n(g.events)} events each, one every ${n(g.gapMs)} ms; ${n(g.rounds)} rounds each way, alternating)`,
    '',
    'Each event carries the time the upstream wrote it; its latency is its arrival at the client minus that. The same upstream (an OpenAI-compatible server in its own process) is called directly and through `textgen serve --upstream` (OpenAI front, OpenAI upstream); the added latency is the difference of the percentiles.',
    '',
    '| path | events | p50 ms | p99 ms |',
    '|---|---:|---:|---:|',
    `| upstream directly (baseline) | ${n(g.samples.direct)} | ${ms(g.direct.p50)} | ${ms(g.direct.p99)} |`,
    `| through \`serve --upstream\` | ${n(g.samples.gateway)} | ${ms(g.gateway.p50)} | ${ms(g.gateway.p99)} |`,
    `| through a minimal pass-through proxy (bench/gateway-minimal.mjs: node:http in and out, each chunk written as it comes, no parsing) | ${n(g.samples.minimal)} | ${ms(g.minimal.p50)} | ${ms(g.minimal.p99)} |`,
    '',
    `The minimal proxy adds ${ms(g.minimalAdded.p50)} ms at p50 and ${ms(g.minimalAdded.p99)} ms at p99 in the same rounds: the floor of a Node process that reads each event and writes it on, on this machine (every stream's events come in one burst per gap, so p99 is about one burst's worth of per-event work).`,
    '',
    '| added latency | figure | target | |',
    '|---|---:|---|---|',
    `| p50 | ${ms(g.added.p50)} ms | ≤ 1 ms | ${verdict(g.added.p50 <= 1)} |`,
    `| p99 | ${ms(g.added.p99)} ms | ≤ 5 ms | ${verdict(g.added.p99 <= 5)} |`,
    '',
    `Time to the first token (request sent → first content event, per stream; the upstream answers its first after ${n(g.gapMs)} ms), for the same rounds: what a client of a burst waits, the gateway's queueing of new requests (one start per turn of its event loop) included.`,
    '',
    '| path | p50 ms | p99 ms |',
    '|---|---:|---:|',
    `| upstream directly | ${ms(g.firstToken.direct.p50)} | ${ms(g.firstToken.direct.p99)} |`,
    `| through \`serve --upstream\` | ${ms(g.firstToken.gateway.p50)} | ${ms(g.firstToken.gateway.p99)} |`,
    `| through the minimal proxy | ${ms(g.firstToken.minimal.p50)} | ${ms(g.firstToken.minimal.p99)} |`,
    '',
    `CPU of the \`serve --upstream\` process: ${g.gatewayCpuMs === undefined ? 'not measured' : `${n(g.gatewayCpuMs)} ms for ${n(g.samples.gateway)} events (${n((g.gatewayCpuMs * 1000) / g.samples.gateway)} µs per event, request handling included; user ${n(g.gatewayUserMs)} ms, system ${n(g.gatewaySystemMs)} ms)`}${g.minimalCpuUsPerEvent === undefined ? '' : `; the minimal proxy's: ${n(g.minimalCpuUsPerEvent)} µs per event (user ${n(g.minimalUserMs)} ms, system ${n(g.minimalSystemMs)} ms), so \`serve --upstream\` uses ${(g.gatewayCpuUsPerEvent / g.minimalCpuUsPerEvent).toFixed(2)}× of it`}.`,
    '',
  );
}

if (only.has('llama')) {
  const l = await group('llama', benchLlama);
  out.push("## The llama engine (`serve --engine llama`, the test suite's successor model, 1 thread)", '');
  if (l.skipped) out.push(l.skipped, '');
  else {
    const d = l.baseline;
    out.push(
      `${n(l.tokens)} greedy tokens per request, medians of ${l.runs} interleaved rounds (each ratio: the median over rounds of the case against its round's baseline). Baselines: node-llama-cpp called directly in the bench process on the same model file (\`sequence.evaluate\`, llama.cpp sampling; and \`controlledEvaluate\` one token at a time with the whole probability map, which is how the engine gets true logprobs). \`serve\` is a separate process; each request is read as a stream over HTTP.`,
      '',
      '| path | time to first token ms | tokens/s | ratio to `evaluate` | ratio to `controlledEvaluate` | CPU µs per token | ratio to `evaluate` by CPU |',
      '|---|---:|---:|---:|---:|---:|---:|',
      `| node-llama-cpp \`evaluate\` (baseline) | ${n(d.ttft, 1)} | ${n(d.rate)} | 1.00× | | ${n(d.cpuPerToken)} | 1.00× |`,
      `| node-llama-cpp \`controlledEvaluate\` + probabilities (baseline) | ${n(d.mappedTtft, 1)} | ${n(d.mappedRate)} | ${d.mappedRatio.toFixed(2)}× | 1.00× | ${n(d.mappedCpuPerToken)} | ${d.mappedCpuRatio.toFixed(2)}× |`,
      ...[...l.engineRows, ...l.rows.map((r) => ({ ...r, name: `serve: ${r.name}` }))].map(
        (r) =>
          `| ${r.name} | ${n(r.ttft, 1)} | ${n(r.rate)} | ${r.vsEvaluate.toFixed(2)}× | ${r.vsControlled.toFixed(2)}× | ${n(r.cpuPerToken)} | ${r.vsEvaluateCpu.toFixed(2)}× |`,
      ),
      '',
      'CPU µs per token: the process CPU time (all threads) over the request divided by its tokens — the bench process for node-llama-cpp and the in-process engine, the `serve` process (from /proc, 10 ms ticks) for the serve rows, without the reading client. It moves less with other work on the machine than tokens/s does (yet does: a busy machine slows every instruction; bench/llama-instructions.mjs counts instructions instead); "ratio by CPU" is the baseline\'s CPU per token over the case\'s (1.00× = as cheap as `evaluate`).',
      '',
      `Model load: ${n(d.loadMs)} ms in-process (getLlama, loadModel, createContext); \`serve\` from spawn to listening with the model loaded: ${n(l.startMs)} ms. Peak RSS of \`serve\`: ${l.serveRssMb === undefined ? 'not measured' : `${n(l.serveRssMb)} MB`}.`,
      '',
    );
  }
}

const loadAtEnd = loadavg();
out.push(
  `Whole bench: ${n((Date.now() - started) / 1000, 1)} s; load average at the end: ${loadAtEnd
    .map((l) => l.toFixed(2))
    .join(', ')}.`,
  '',
);
const decision = decideQuiet(groups, busyCores);
const cpu = (c) => (c === undefined ? 'not measured' : `${n(c, 2)} cores`);
out.push(
  `Other processes' CPU (the machine's busy time in /proc/stat minus this bench's own process tree), busy from ${n(busyCores, 2)} cores of ${cores}:`,
  '',
  '| group | load average before | others, 2 s before the group | others, during the group |',
  '|---|---:|---:|---:|',
  ...groups.map(
    (g) => `| ${g.name} | ${g.load === undefined ? '–' : n(g.load, 2)} | ${cpu(g.before)} | ${cpu(g.during)} |`,
  ),
  '',
);
const busy = !decision.quiet;
if (busy)
  out.push(
    `**No verdict: the machine was busy** (${decision.reasons.join('; ') || 'nothing measured'}). Other work slows textgen and its baselines unevenly; run again on a quiet machine for pass/fail against the targets.`,
    '',
  );
// Verdicts were written as rows were made; a machine that became busy during the run takes them back.
let text = out.join('\n');
if (busy)
  text = text
    .replaceAll('**not met**', 'no verdict (machine busy)')
    .replaceAll('| met |', '| no verdict (machine busy) |')
    .replaceAll(': met)', ': no verdict (machine busy))');
writeFileSync(resultsPath, text);
console.log(text);
