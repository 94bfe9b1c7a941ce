// Streaming throughput and time to first token: every client reads the same bytes from bench/stream-server.mjs
// (its own process), with stdout on a pipe this process drains. Rates are tokens (events) per second from the
// client's first stdout byte to its last, so neither start-up (measured on its own) nor tear-down after the
// output blurs them; the time to first token is from spawn to that first byte.
import { join } from 'node:path';
import { bin, envNumber, hasCommand, median, quick, root, runTimed, startHelper } from './lib.mjs';

const TIME = '/usr/bin/time';

const CURL = '/usr/bin/curl';

export async function benchStreaming() {
  const events = envNumber('BENCH_EVENTS', quick ? 20_000 : 100_000);
  const runs = envNumber('BENCH_STREAM_RUNS', quick ? 3 : 5);
  const server = await startHelper(join(root, 'bench', 'stream-server.mjs'), [], { BENCH_EVENTS: String(events) });
  try {
    const azureUrl = `${server.url}/openai/deployments/demo/completions?api-version=2024-10-21`;
    const body = JSON.stringify({ prompt: 'hi', stream: true });
    const textBytes = server.textBytes + 1; // the CLI and the SDK script end the text with a newline
    const clients = [];
    const curlPath = hasCommand(CURL) ? CURL : undefined;
    if (curlPath) {
      clients.push({
        name: 'curl -N (raw SSE bytes)',
        key: 'curl',
        cmd: curlPath,
        args: ['-N', '-s', '-X', 'POST', '-H', 'content-type: application/json', '--data-raw', body, azureUrl],
        check: (r) => r.bytes > textBytes,
      });
    }
    clients.push({
      name: 'node: split SSE lines only',
      key: 'split',
      cmd: process.execPath,
      args: [join(root, 'bench', 'sse-split.mjs'), azureUrl],
      keepTail: 32,
      check: (r) => r.tail.trim().endsWith(String(events + 1)), // every event plus [DONE]
    });
    clients.push({
      name: 'openai SDK 6 (completions, stream)',
      key: 'sdk',
      cmd: process.execPath,
      args: [join(root, 'bench', 'sdk-client.mjs'), server.url],
      check: (r) => r.bytes === textBytes,
    });
    clients.push({
      name: 'textgen --stream (azure-openai, text)',
      key: 'textgen',
      cmd: process.execPath,
      args: [
        bin,
        '--provider',
        'azure-openai',
        '--url',
        server.url,
        '--api-key',
        'bench',
        '-q',
        'deployment',
        'text-generate',
        '--id-or-name',
        'demo',
        '--input',
        'hi',
        '--stream',
      ],
      check: (r) => r.bytes === textBytes,
    });

    // BENCH_COMPARE_BIN: another build of the CLI (e.g. the commit before an optimisation) in the same rounds.
    if (process.env.BENCH_COMPARE_BIN) {
      const textgen = clients[clients.length - 1];
      clients.push({
        ...textgen,
        name: `${textgen.name}, ${process.env.BENCH_COMPARE_NAME ?? 'BENCH_COMPARE_BIN'}`,
        key: 'compare',
        args: [process.env.BENCH_COMPARE_BIN, ...textgen.args.slice(1)],
      });
    }
    const samples = new Map(clients.map((c) => [c.key, []]));
    // Interleaved rounds, so a slow moment of the machine hits every client alike; one warm-up round first.
    for (let round = 0; round <= runs; round++) {
      for (const c of clients) {
        const r = await runTimed(c.cmd, c.args, { keepTail: c.keepTail ?? 0 });
        if (r.code !== 0 || r.firstByteMs === undefined || !c.check(r)) {
          throw new Error(`${c.name}: exit ${r.code}, ${r.bytes} bytes on stdout; stderr: ${r.stderr.slice(0, 500)}`);
        }
        if (round > 0) samples.get(c.key).push(r);
      }
    }

    const stats = new Map();
    for (const c of clients) {
      const rs = samples.get(c.key);
      stats.set(c.key, {
        name: c.name,
        wholeMs: median(rs.map((r) => r.ms)),
        firstByteMs: median(rs.map((r) => r.firstByteMs)),
        rate: median(rs.map((r) => events / (Math.max(r.lastByteMs - r.firstByteMs, 1) / 1000))),
        exitMs: median(rs.map((r) => r.ms - r.lastByteMs)),
      });
    }
    const curl = stats.get('curl');
    const sdk = stats.get('sdk');
    const tg = stats.get('textgen');
    const base = curl ?? stats.get('split');
    const throughput = [...stats.entries()].map(([key, s]) => ({
      ...s,
      key,
      vsBase: s.rate / base.rate,
      vsSdk: s.rate / sdk.rate,
      target: key === 'textgen' ? '≥ 1× SDK' : '',
    }));
    const ttftOf = (s) => ({
      name: s.name,
      ms: s.firstByteMs,
      addedMs: s.firstByteMs - base.firstByteMs,
      ratio: s.firstByteMs / base.firstByteMs,
    });
    const ttft = {
      baseName: curl ? 'curl' : 'node split',
      baseMs: base.firstByteMs,
      rows: [ttftOf(tg), ...(stats.has('compare') ? [ttftOf(stats.get('compare'))] : [])],
    };
    const cpu = await cpuPerToken(
      clients.find((c) => c.key === 'textgen'),
      azureUrl,
      server.url,
      events,
      runs,
    );
    return {
      cpu,
      events,
      runs,
      chunkBytes: envNumber('BENCH_CHUNK', 16_384),
      curlMissing: !curlPath,
      throughput,
      ttft,
      sdkRate: sdk.rate,
      textgenRate: tg.rate,
      baseRate: base.rate,
    };
  } finally {
    await server.stop();
  }
}

/**
 * CPU time (user + system, /usr/bin/time) textgen spends per streamed token: the same command on the big stream
 * and on a one-event stream (a second server), the difference over the events in between. Start-up and exit
 * cancel out.
 */
async function cpuPerToken(textgen, _azureUrl, bigUrl, events, runs) {
  if (!hasCommand(TIME)) return undefined;
  const small = await startHelper(join(root, 'bench', 'stream-server.mjs'), [], { BENCH_EVENTS: '1' });
  try {
    const cpuOf = async (url) => {
      const args = textgen.args.map((a) => (a === bigUrl ? url : a));
      const r = await runTimed(TIME, ['-f', 'cpu %U %S', textgen.cmd, ...args]);
      const m = /cpu ([0-9.]+) ([0-9.]+)\s*$/.exec(r.stderr);
      if (r.code !== 0 || !m) throw new Error(`textgen under ${TIME}: exit ${r.code}; ${r.stderr.slice(0, 300)}`);
      return (Number(m[1]) + Number(m[2])) * 1000;
    };
    const big = [];
    const one = [];
    for (let i = 0; i < runs; i++) {
      big.push(await cpuOf(bigUrl));
      one.push(await cpuOf(small.url));
    }
    const bigMs = median(big);
    const smallMs = median(one);
    return { runs, bigMs, smallMs, perTokenUs: ((bigMs - smallMs) * 1000) / Math.max(events - 1, 1) };
  } finally {
    await small.stop();
  }
}
