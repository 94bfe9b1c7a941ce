// The llama engine (`serve --engine llama`): generation speed and time to first token of the engine itself in this
// process (its fast path, llama.cpp sampling through `sequence.evaluate`, and its exact path, the whole distribution
// per token for true logprobs) and through `serve` in each protocol, against node-llama-cpp called directly in this
// process on the same model in the same run, so each ratio is what the engine and the protocols (HTTP, JSON, SSE)
// cost. The model is
// the test suite's tiny successor model (test/helpers/gguf-successor.ts) in its endless variant (`z` → `a`), so every
// request generates exactly BENCH_LLAMA_TOKENS tokens. One thread everywhere: 2 cores, shared with the client.
// Skipped, with a line, when node-llama-cpp is not installed (npm run engine:install).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { bin, cleanEnv, envNumber, median, processCpu, quick, root } from './lib.mjs';

const TOKENS = envNumber('BENCH_LLAMA_TOKENS', quick ? 100 : 400);
const RUNS = envNumber('BENCH_LLAMA_RUNS', quick ? 3 : 7);
const CONTEXT = 1024;

function engineEntry() {
  const dir = join(root, 'engines', 'llama', 'node_modules', 'node-llama-cpp');
  if (!existsSync(join(dir, 'package.json'))) return undefined;
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  return join(dir, pkg.exports?.['.']?.import ?? 'dist/index.js');
}

/** The model writer is TypeScript: bundled to a temporary module first. */
async function writeModel(dir) {
  const out = join(dir, 'writer.mjs');
  await build({
    entryPoints: [join(root, 'test', 'helpers', 'gguf-successor.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: out,
    logLevel: 'warning',
  });
  const { writeSuccessorModel } = await import(pathToFileURL(out).href);
  return writeSuccessorModel(join(dir, 'bench-successor.gguf'), { contextLength: CONTEXT, cycle: true });
}

/** CPU time of this process (every thread: llama.cpp decodes on libuv's pool) in µs. */
function ownCpuUs() {
  const u = process.cpuUsage();
  return u.user + u.system;
}

/** CPU time of another process in µs (/proc's 10 ms ticks); undefined where there is no /proc. */
function processCpuUs(pid) {
  const cpu = processCpu(pid);
  return cpu === undefined ? undefined : (cpu.user + cpu.system) * 1000;
}

/**
 * textgen's llama engine in this process, bundled from its sources. The bundle sits under the checkout
 * (node_modules/.cache) so the engine finds node-llama-cpp in engines/llama/ as it does from dist/.
 */
async function engineInProcess(modelPath) {
  const cache = join(root, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, 'textgen-bench-llama-'));
  const out = join(dir, 'engine.mjs');
  try {
    await build({
      entryPoints: [join(root, 'src', 'emulator', 'engine', 'llama', 'engine.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: out,
      logLevel: 'warning',
    });
    const { createLlamaEngine } = await import(pathToFileURL(out).href);
    const settings = { modelPath, threads: 1, contextSize: CONTEXT, gpu: 'off', parallel: 1 };
    return {
      fast: await createLlamaEngine(settings),
      exact: await createLlamaEngine({ ...settings, decodePath: 'exact' }),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One greedy generation of TOKENS tokens through the engine's own interface: { ttft, rate }. */
async function engineOnce(engine, returnOptions) {
  const cpu0 = ownCpuUs();
  const start = performance.now();
  const generation = await engine.startGeneration({
    input: 'a',
    parameters: { decoding_method: 'greedy', max_new_tokens: TOKENS, return_options: returnOptions },
  });
  let first;
  let last;
  let text = '';
  for await (const step of generation) {
    if (!step.text) continue;
    first ??= performance.now();
    last = performance.now();
    text += step.text;
  }
  if (!text.startsWith('bcdefghijklmnopqrstuvwxyza')) throw new Error(`the engine produced ${text.slice(0, 40)}…`);
  return {
    ttft: first - start,
    rate: (TOKENS - 1) / ((last - first) / 1000),
    cpuPerToken: (ownCpuUs() - cpu0) / TOKENS,
  };
}

/** The engine's cases: the fast path (nothing but text asked for) and the exact one (token logprobs asked for). */
const ENGINE_CASES = [
  { name: 'engine in-process, fast path (`sequence.evaluate`)', run: (e) => engineOnce(e.fast, undefined) },
  {
    name: 'engine in-process, exact path (token_logprobs asked for)',
    run: (e) => engineOnce(e.fast, { token_logprobs: true }),
  },
  {
    name: 'engine in-process, exact path forced (`TEXTGEN_LLAMA_DECODE=exact`)',
    run: (e) => engineOnce(e.exact, undefined),
  },
];

/** node-llama-cpp in this process: two ways to generate TOKENS tokens, each returning { ttft, rate }. */
async function direct(entry, modelPath) {
  const { getLlama, LlamaLogLevel } = await import(pathToFileURL(entry).href);
  const t0 = performance.now();
  const llama = await getLlama({ gpu: false, build: 'never', maxThreads: 1, logLevel: LlamaLogLevel.error });
  const model = await llama.loadModel({ modelPath });
  const context = await model.createContext({ contextSize: CONTEXT, threads: 1 });
  const loadMs = performance.now() - t0;
  const sequence = context.getSequence();
  const prompt = [model.tokens.bos, ...model.tokenize('a')];
  const neutral = { temperature: 1, topK: 0, topP: 1, minP: 0 };

  async function evaluate() {
    await sequence.clearHistory();
    const cpu0 = ownCpuUs();
    const start = performance.now();
    let first;
    let count = 0;
    let text = '';
    for await (const token of sequence.evaluate(prompt, { temperature: 0 })) {
      first ??= performance.now();
      text += model.detokenize([token]);
      if (++count === TOKENS) break;
    }
    const end = performance.now();
    if (!text.startsWith('bcdefghijklmnopqrstuvwxyza')) throw new Error(`direct run produced ${text.slice(0, 40)}…`);
    const cpuPerToken = (ownCpuUs() - cpu0) / TOKENS;
    return { ttft: first - start, rate: (TOKENS - 1) / ((end - first) / 1000), cpuPerToken };
  }

  // One token at a time with the whole probability map, as the engine evaluates (true logprobs).
  async function controlled() {
    await sequence.clearHistory();
    const cpu0 = ownCpuUs();
    const start = performance.now();
    const last = prompt.length - 1;
    let out = await sequence.controlledEvaluate(
      prompt.map((t, i) => (i === last ? [t, { generateNext: { probabilities: true, options: neutral } }] : t)),
    );
    let probabilities = out[last].next.probabilities;
    let first;
    for (let count = 0; count < TOKENS; count++) {
      let best = -1;
      let bestP = -1;
      for (const [id, p] of probabilities) if (p > bestP) [best, bestP] = [id, p];
      first ??= performance.now();
      if (count === TOKENS - 1) break;
      out = await sequence.controlledEvaluate([[best, { generateNext: { probabilities: true, options: neutral } }]]);
      probabilities = out[0].next.probabilities;
    }
    const end = performance.now();
    const cpuPerToken = (ownCpuUs() - cpu0) / TOKENS;
    return { ttft: first - start, rate: (TOKENS - 1) / ((end - first) / 1000), cpuPerToken };
  }

  async function close() {
    await context.dispose();
    await model.dispose();
    await llama.dispose();
  }
  return { loadMs, evaluate, controlled, close };
}

function startServe(modelPath) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(
      process.execPath,
      [
        bin,
        'serve',
        '--port',
        '0',
        '--engine',
        'llama',
        '--model',
        modelPath,
        '--threads',
        '1',
        '--context-size',
        String(CONTEXT),
        '--gpu',
        'off',
        '--parallel',
        '1',
        '--model-name',
        'bench',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'], env: cleanEnv() },
    );
    let err = '';
    child.stderr.on('data', (chunk) => {
      err += chunk;
      const m = /serving .* as "/.test(err) && /listening on (http:\/\/\S+)/.exec(err);
      if (m) resolve({ child, url: m[1], startMs: performance.now() - t0 });
    });
    child.on('exit', (code) => reject(new Error(`serve exited (${code}): ${err}`)));
  });
}

/** One streamed request per protocol: the body and how to read text out of one SSE data line. */
const PROTOCOLS = [
  {
    name: 'watsonx `/ml/v1/text/generation_stream`',
    path: '/ml/v1/text/generation_stream?version=2024-05-01',
    body: {
      model_id: 'bench',
      space_id: 's',
      input: 'a',
      parameters: { decoding_method: 'greedy', max_new_tokens: TOKENS },
    },
    text: (d) => d.results?.[0]?.generated_text ?? '',
  },
  {
    name: 'OpenAI `/v1/completions` (stream)',
    path: '/v1/completions',
    body: { model: 'bench', prompt: 'a', max_tokens: TOKENS, temperature: 0, stream: true },
    text: (d) => d.choices?.[0]?.text ?? '',
  },
  {
    name: 'Aleph Alpha `/complete` (stream)',
    path: '/complete',
    body: { model: 'bench', prompt: 'a', maximum_tokens: TOKENS, stream: true },
    text: (d) => (d.type === 'stream_chunk' ? d.completion : ''),
  },
  {
    name: 'Open Inference `/v2/models/bench/generate_stream`',
    path: '/v2/models/bench/generate_stream',
    body: { text_input: 'a', parameters: { max_tokens: TOKENS } },
    text: (d) => d.text_output ?? '',
  },
  {
    name: 'OpenAI `/v1/completions` (stream) with `logprobs: 1`: the exact path',
    path: '/v1/completions',
    body: { model: 'bench', prompt: 'a', max_tokens: TOKENS, temperature: 0, stream: true, logprobs: 1 },
    text: (d) => d.choices?.[0]?.text ?? '',
  },
];

/** One streamed request; cpuPerToken is the serve process's own CPU time (`pid`), not the reading client's. */
async function streamOnce(url, p, pid) {
  const cpu0 = processCpuUs(pid);
  const start = performance.now();
  const res = await fetch(url + p.path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(p.body),
  });
  const decoder = new TextDecoder();
  let buffer = '';
  let text = '';
  let first;
  let last;
  for await (const chunk of res.body) {
    buffer += decoder.decode(chunk, { stream: true });
    let nl;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      if (!line.startsWith('data:')) continue;
      const data = line.slice(5).trim();
      if (data === '[DONE]') continue;
      const piece = p.text(JSON.parse(data));
      if (piece) {
        first ??= performance.now();
        last = performance.now();
        text += piece;
      }
    }
  }
  if (!text.startsWith('bcdefghijklmnopqrstuvwxyza')) throw new Error(`${p.name} produced ${text.slice(0, 40)}…`);
  const cpu1 = processCpuUs(pid);
  const cpuPerToken = cpu0 === undefined || cpu1 === undefined ? Number.NaN : (cpu1 - cpu0) / TOKENS;
  return { ttft: first - start, rate: (TOKENS - 1) / ((last - first) / 1000), cpuPerToken };
}

function peakRssMb(pid) {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Interleaved rounds: each round runs both direct paths and every protocol once, so a busy moment on the shared
 * machine hits them alike; each ratio is the median over rounds of the case against the baseline of its round.
 */
export async function benchLlama() {
  const entry = engineEntry();
  if (!entry) return { skipped: 'SKIPPED: node-llama-cpp is not installed (npm run engine:install)' };
  const dir = mkdtempSync(join(tmpdir(), 'textgen-bench-llama-'));
  try {
    const modelPath = await writeModel(dir);
    const d = await direct(entry, modelPath);
    const engines = await engineInProcess(modelPath);
    const { child, url, startMs } = await startServe(modelPath);
    try {
      for (const p of PROTOCOLS) await streamOnce(url, p, child.pid);
      for (const c of ENGINE_CASES) await c.run(engines);
      await d.evaluate();
      await d.controlled();
      const rounds = [];
      for (let r = 0; r < RUNS; r++) {
        const evaluate = await d.evaluate();
        const controlled = await d.controlled();
        const engine = [];
        for (const c of ENGINE_CASES) engine.push(await c.run(engines));
        const serve = [];
        for (const p of PROTOCOLS) serve.push(await streamOnce(url, p, child.pid));
        rounds.push({ evaluate, controlled, engine, serve });
      }
      const med = (f) => median(rounds.map(f));
      const baseline = {
        loadMs: d.loadMs,
        ttft: med((r) => r.evaluate.ttft),
        rate: med((r) => r.evaluate.rate),
        mappedTtft: med((r) => r.controlled.ttft),
        mappedRate: med((r) => r.controlled.rate),
        mappedRatio: med((r) => r.controlled.rate / r.evaluate.rate),
        cpuPerToken: med((r) => r.evaluate.cpuPerToken),
        mappedCpuPerToken: med((r) => r.controlled.cpuPerToken),
        mappedCpuRatio: med((r) => r.evaluate.cpuPerToken / r.controlled.cpuPerToken),
      };
      const rows = PROTOCOLS.map((p, i) => ({
        name: p.name,
        ttft: med((r) => r.serve[i].ttft),
        rate: med((r) => r.serve[i].rate),
        vsEvaluate: med((r) => r.serve[i].rate / r.evaluate.rate),
        vsControlled: med((r) => r.serve[i].rate / r.controlled.rate),
        cpuPerToken: med((r) => r.serve[i].cpuPerToken),
        vsEvaluateCpu: med((r) => r.evaluate.cpuPerToken / r.serve[i].cpuPerToken),
      }));
      const engineRows = ENGINE_CASES.map((c, i) => ({
        name: c.name,
        ttft: med((r) => r.engine[i].ttft),
        rate: med((r) => r.engine[i].rate),
        vsEvaluate: med((r) => r.engine[i].rate / r.evaluate.rate),
        vsControlled: med((r) => r.engine[i].rate / r.controlled.rate),
        cpuPerToken: med((r) => r.engine[i].cpuPerToken),
        vsEvaluateCpu: med((r) => r.evaluate.cpuPerToken / r.engine[i].cpuPerToken),
      }));
      return { tokens: TOKENS, runs: RUNS, baseline, startMs, engineRows, rows, serveRssMb: peakRssMb(child.pid) };
    } finally {
      child.kill('SIGINT');
      await engines.fast.close();
      await engines.exact.close();
      await d.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
