// Start-up (issue 15's table): every row a whole process, spawn to exit, measured in paired rounds — each round
// runs every case once, in the same order, so a slow moment of the machine hits all of them — and reported as
// the median over the rounds of its ratio to three baselines of the same round: `node -e 0`, a minimal node:http
// client (bench/http-client.mjs) and curl, each doing the same request against the same server
// (bench/stream-server.mjs, in its own process, answering at once). One warm-up round first (it also fills
// textgen's compile cache, src/cli/launch/compile-cache.ts); the row "compile cache off" shows a first run.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin, cleanEnv, envNumber, hasCommand, median, quick, root, startHelper } from './lib.mjs';

const CURL = '/usr/bin/curl';

function timeOnce(cmd, args, env) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env, timeout: 60_000, cwd: root });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0)
    throw new Error(`${[cmd, ...args].join(' ')} exited ${r.status}: ${String(r.stderr).slice(0, 500)}`);
  return { ms, stdout: String(r.stdout) };
}

export async function benchColdStart() {
  const runs = envNumber('BENCH_RUNS', quick ? 7 : 15);
  // One event per stream: the streamed row is the same one-token answer as the whole-request row.
  const server = await startHelper(join(root, 'bench', 'stream-server.mjs'), [], { BENCH_EVENTS: '1' });
  const home = mkdtempSync(join(tmpdir(), 'textgen-bench-'));
  try {
    mkdirSync(join(home, 'config', 'textgen'), { recursive: true });
    writeFileSync(
      join(home, 'config', 'textgen', 'config.yaml'),
      `profiles:\n  bench:\n    provider: azure-openai\n    url: ${server.url}\n    auth:\n      type: api-key\n      key_env: BENCH_KEY\n`,
    );
    const env = cleanEnv({
      HOME: home,
      XDG_CONFIG_HOME: join(home, 'config'),
      XDG_CACHE_HOME: join(home, 'cache'),
      BENCH_KEY: 'bench',
    });
    const completions = `${server.url}/openai/deployments/demo/completions?api-version=2024-10-21`;
    const adHoc = ['--provider', 'azure-openai', '--url', server.url, '--api-key', 'bench'];
    // watsonx with a bearer token: the same fake server answers in watsonx's shape, no IAM exchange.
    const watsonx = ['--provider', 'watsonx', '--url', server.url, '--token', 'bench'];
    const request = [
      'deployment',
      'text-generate',
      '--id-or-name',
      'demo',
      '--input',
      'Hello',
      '--parameters-max-new-tokens',
      '1',
    ];
    const streamed = [
      'deployment',
      'text-generate-stream',
      '--id-or-name',
      'demo',
      '--input',
      'Hello',
      '--parameters-max-new-tokens',
      '1',
    ];

    const baselines = [{ key: 'node', name: '`node -e 0`', cmd: process.execPath, args: ['-e', '0'] }];
    baselines.push({
      key: 'http',
      name: 'minimal `node:http` client, same request',
      cmd: process.execPath,
      args: [join(root, 'bench', 'http-client.mjs'), completions],
    });
    if (hasCommand(CURL)) {
      baselines.push({
        key: 'curl',
        name: '`curl`, same request',
        cmd: CURL,
        args: [
          '-sS',
          '-X',
          'POST',
          '-H',
          'content-type: application/json',
          '-H',
          'api-key: bench',
          '--data-raw',
          '{"prompt":"Hello","max_tokens":1}',
          completions,
        ],
      });
    }
    const builds = [{ label: '', bin }];
    if (process.env.BENCH_COMPARE_BIN)
      builds.push({
        label: ` (${process.env.BENCH_COMPARE_NAME ?? 'BENCH_COMPARE_BIN'})`,
        bin: process.env.BENCH_COMPARE_BIN,
      });
    const rows = [];
    for (const [i, b] of builds.entries()) {
      // Each build its own parsed-config cache (src/config/parsed-cache.ts): a record is valid for one build only,
      // so two builds sharing one would each parse the user config file again after every run of the other
      // (about 50 ms, in whichever row came next).
      const own = i === 0 ? {} : { XDG_CACHE_HOME: join(home, `cache-${i}`) };
      const tg = (args, extra = {}) => ({
        cmd: process.execPath,
        args: [b.bin, ...args],
        env: { ...env, ...own, ...extra },
      });
      rows.push(
        {
          key: `watsonx${b.label}`,
          name: `whole watsonx request (\`--provider watsonx --token …\`)${b.label}`,
          target: 2.0,
          ...tg([...watsonx, ...request]),
          expect: ' ok.',
        },
        {
          key: `request${b.label}`,
          name: `\`deployment text-generate … --parameters-max-new-tokens 1\` (whole request)${b.label}`,
          target: 2.0,
          ...tg([...adHoc, ...request]),
          expect: ' ok.',
        },
        {
          key: `stream${b.label}`,
          name: `\`deployment text-generate-stream … --parameters-max-new-tokens 1\`${b.label}`,
          target: 2.0,
          ...tg([...adHoc, ...streamed]),
          expect: ' the',
        },
        {
          key: `help${b.label}`,
          name: `\`--help\`${b.label}`,
          target: 1.5,
          ...tg(['--help']),
          expect: 'Usage: textgen',
        },
        { key: `version${b.label}`, name: `\`--version\`${b.label}`, target: 1.2, ...tg(['--version']), expect: '.' },
        {
          key: `profile${b.label}`,
          name: `whole request, profile from the user config file (\`--profile bench\`)${b.label}`,
          ...tg(['--profile', 'bench', ...request]),
          expect: ' ok.',
        },
        {
          key: `subhelp${b.label}`,
          name: `\`deployment text-generate --help\`${b.label}`,
          ...tg(['deployment', 'text-generate', '--help']),
          expect: 'Usage: textgen deployment',
        },
        {
          key: `nocache${b.label}`,
          name: `whole request, compile cache off (\`NODE_DISABLE_COMPILE_CACHE=1\`: a first run)${b.label}`,
          ...tg([...adHoc, ...request], { NODE_DISABLE_COMPILE_CACHE: '1' }),
          expect: ' ok.',
        },
      );
    }

    const cases = [...baselines.map((c) => ({ ...c, env })), ...rows];
    const samples = new Map(cases.map((c) => [c.key, []]));
    for (let round = 0; round <= runs; round++) {
      for (const c of cases) {
        const r = timeOnce(c.cmd, c.args, c.env);
        if (c.expect !== undefined && !r.stdout.includes(c.expect))
          throw new Error(`${c.name}: unexpected output ${JSON.stringify(r.stdout.slice(0, 200))}`);
        if (round > 0) samples.get(c.key).push(r.ms);
      }
    }
    const ratio = (key, base) => median(samples.get(key).map((ms, i) => ms / samples.get(base)[i]));
    const out = (c) => ({
      name: c.name,
      ms: median(samples.get(c.key)),
      vsNode: ratio(c.key, 'node'),
      vsHttp: ratio(c.key, 'http'),
      vsCurl: samples.has('curl') ? ratio(c.key, 'curl') : undefined,
      target: c.target === undefined ? '' : `≤ ${c.target.toFixed(1)}×`,
      ok: c.target === undefined ? undefined : ratio(c.key, 'node') <= c.target,
    });
    return { runs, baselines: baselines.map(out), rows: rows.map(out) };
  } finally {
    rmSync(home, { recursive: true, force: true });
    await server.stop();
  }
}
