#!/usr/bin/env node
// `serve --upstream` overhead (issue 26): BENCH_GATEWAY_STREAMS (default 100) concurrent chat streams against an
// OpenAI-compatible upstream (gateway-upstream.mjs, its own process), called directly and through `textgen serve
// --upstream` (OpenAI front, OpenAI upstream), in alternating rounds. The upstream stamps each event with the
// wall-clock time it wrote it (`performance.timeOrigin + now()`, comparable across processes on one machine); the
// client takes each event's arrival time, so every event gives one one-way latency. The added latency is the
// gateway's percentile minus the direct one's, p50 and p99 (targets ≤ 1 ms and ≤ 5 ms). Every process runs with
// the clean environment (lib.mjs cleanEnv). Run alone: `node bench/gateway.mjs` (after `npm run build`).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, cleanEnv, envNumber, processCpu, quick, root, startHelper } from './lib.mjs';

const now = () => performance.timeOrigin + performance.now();

function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/**
 * One streamed chat request; resolves with each event's one-way latency (arrival − the upstream's stamp), ms, and
 * the time from sending the request to the first content event's arrival (what a client waits for its first token,
 * queueing in the gateway included).
 */
function stream(url, agent) {
  return new Promise((resolve, reject) => {
    const sentAt = now();
    let firstAt;
    const body = JSON.stringify({ model: 'bench', messages: [{ role: 'user', content: 'hi' }], stream: true });
    const req = request(
      `${url}/v1/chat/completions`,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          reject(new Error(`HTTP ${res.statusCode} from ${url}`));
          return;
        }
        const latencies = [];
        let buffer = '';
        res.setEncoding('utf8');
        res.on('data', (text) => {
          const at = now();
          buffer += text;
          let end = buffer.indexOf('\n\n');
          while (end !== -1) {
            const event = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const stamp = /t\d+@(\d+\.\d+)/.exec(event);
            if (stamp) {
              latencies.push(at - Number(stamp[1]));
              firstAt ??= at;
            }
            end = buffer.indexOf('\n\n');
          }
        });
        res.on('end', () => resolve({ latencies, firstToken: firstAt === undefined ? undefined : firstAt - sentAt }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** One round of `streams` requests at once: every event's latency, and each stream's time to its first token. */
async function round(url, streams, agent, firstTokens = []) {
  const all = await Promise.all(Array.from({ length: streams }, () => stream(url, agent)));
  for (const s of all) if (s.firstToken !== undefined) firstTokens.push(s.firstToken);
  return all.flatMap((s) => s.latencies);
}

/** Starts `textgen serve --upstream bench` and resolves with its URL once it listens. */
function startGateway(config) {
  return new Promise((resolve, reject) => {
    // BENCH_GATEWAY_NODE_ARGS: Node flags for the gateway's process only (`--cpu-prof --cpu-prof-dir=DIR` profiles it).
    const nodeArgs = (process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const args = [...nodeArgs, bin, '--config', config, 'serve', '--port', '0', '--upstream', 'bench'];
    const child = spawn(process.execPath, args, {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: cleanEnv(),
    });
    let stderr = '';
    child.stderr.on('data', (b) => {
      stderr += b;
      const m = /listening on (http:\/\/\S+)/.exec(stderr);
      if (m)
        resolve({
          url: m[1],
          pid: child.pid,
          stop: () =>
            new Promise((done) => {
              child.once('exit', done);
              child.kill('SIGTERM');
            }),
        });
    });
    child.once('exit', (code) => reject(new Error(`serve --upstream exited (${code}): ${stderr}`)));
  });
}

export async function benchGateway() {
  const streams = envNumber('BENCH_GATEWAY_STREAMS', 100);
  const rounds = envNumber('BENCH_GATEWAY_ROUNDS', quick ? 3 : 8);
  const events = envNumber('BENCH_GATEWAY_EVENTS', 20);
  const gapMs = envNumber('BENCH_GATEWAY_GAP_MS', 20);
  const upstream = await startHelper(join(root, 'bench', 'gateway-upstream.mjs'), [], {
    BENCH_GATEWAY_EVENTS: String(events),
    BENCH_GATEWAY_GAP_MS: String(gapMs),
  });
  const dir = mkdtempSync(join(tmpdir(), 'textgen-bench-gateway-'));
  const config = join(dir, 'config.yaml');
  writeFileSync(
    config,
    `profiles:\n  bench:\n    provider: openai\n    url: ${upstream.url}/v1\n    auth: { type: none }\n    defaults: { model: bench }\n`,
    { mode: 0o600 },
  );
  const gateway = await startGateway(config);
  const minimal = await startHelper(join(root, 'bench', 'gateway-minimal.mjs'), [upstream.url]);
  const agent = new Agent({ keepAlive: true, maxSockets: streams });
  const direct = [];
  const through = [];
  const floor = [];
  let gatewayCpuMs;
  let minimalCpuMs;
  /** One round through a proxy process, adding its CPU for the round to `total`. */
  const firsts = { direct: [], gateway: [], minimal: [] };
  const measured = async (url, pid, into, total, firstTokens) => {
    const before = processCpu(pid);
    into.push(...(await round(url, streams, agent, firstTokens)));
    const after = processCpu(pid);
    if (before === undefined || after === undefined) return total;
    const sum = total ?? { user: 0, system: 0 };
    sum.user += after.user - before.user;
    sum.system += after.system - before.system;
    return sum;
  };
  try {
    // Warm-up: connections, JIT, the tokenizer serve loads on its first chat.
    await round(upstream.url, streams, agent);
    await round(gateway.url, streams, agent);
    await round(minimal.url, streams, agent);
    for (let i = 0; i < rounds; i++) {
      direct.push(...(await round(upstream.url, streams, agent, firsts.direct)));
      gatewayCpuMs = await measured(gateway.url, gateway.pid, through, gatewayCpuMs, firsts.gateway);
      minimalCpuMs = await measured(minimal.url, minimal.pid, floor, minimalCpuMs, firsts.minimal);
    }
  } finally {
    agent.destroy();
    await gateway.stop();
    await minimal.stop();
    await upstream.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const d = direct.sort((a, b) => a - b);
  const g = through.sort((a, b) => a - b);
  const p = (sorted) => ({ p50: percentile(sorted, 50), p99: percentile(sorted, 99) });
  const dp = p(d);
  const gp = p(g);
  const f = floor.sort((a, b) => a - b);
  const fp = p(f);
  const perEvent = (cpu, samples) => cpu && ((cpu.user + cpu.system) * 1000) / samples;
  return {
    streams,
    rounds,
    events,
    gapMs,
    samples: { direct: d.length, gateway: g.length, minimal: f.length },
    direct: dp,
    gateway: gp,
    added: { p50: gp.p50 - dp.p50, p99: gp.p99 - dp.p99 },
    // The same rounds through bench/gateway-minimal.mjs, a pass-through proxy: the floor of a Node gateway.
    minimal: fp,
    minimalAdded: { p50: fp.p50 - dp.p50, p99: fp.p99 - dp.p99 },
    // Request sent → first content event, per stream (the upstream waits gapMs before its first event).
    firstToken: {
      direct: p(firsts.direct.sort((a, b) => a - b)),
      gateway: p(firsts.gateway.sort((a, b) => a - b)),
      minimal: p(firsts.minimal.sort((a, b) => a - b)),
    },
    gatewayCpuMs: gatewayCpuMs && gatewayCpuMs.user + gatewayCpuMs.system,
    gatewayUserMs: gatewayCpuMs?.user,
    gatewaySystemMs: gatewayCpuMs?.system,
    // The gateway's CPU per front event (user + system over every event of the measured rounds).
    gatewayCpuUsPerEvent: perEvent(gatewayCpuMs, g.length),
    minimalCpuUsPerEvent: perEvent(minimalCpuMs, f.length),
    minimalUserMs: minimalCpuMs?.user,
    minimalSystemMs: minimalCpuMs?.system,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await benchGateway();
  console.log(JSON.stringify(r, null, 2));
}
