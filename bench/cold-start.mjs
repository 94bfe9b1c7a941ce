// Cold start: `textgen --version` / `--help` against `node -e 0`, each the median of BENCH_RUNS spawns.
import { spawnSync } from 'node:child_process';
import { bin, envNumber, median, quick } from './lib.mjs';

function time(args, runs) {
  const samples = [];
  for (let i = 0; i < runs + 2; i++) {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'ignore'], env: { ...process.env, CI: 'true' }, timeout: 30_000 });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}`);
    if (i >= 2) samples.push(ms); // the first two warm the file cache
  }
  return median(samples);
}

export function benchColdStart() {
  const runs = envNumber('BENCH_RUNS', quick ? 7 : 15);
  const baseline = time(['-e', '0'], runs);
  const cases = [
    ['textgen --version', [bin, '--version'], 1.5],
    ['textgen --help', [bin, '--help'], 2],
    ['textgen deployment text-generate --help', [bin, 'deployment', 'text-generate', '--help'], 2],
  ];
  const rows = [{ name: 'node -e 0 (baseline)', ms: baseline, ratio: 1, target: '' }];
  for (const [name, args, target] of cases) {
    const ms = time(args, runs);
    rows.push({ name, ms, ratio: ms / baseline, target: `≤ ${target}×`, ok: ms / baseline <= target });
  }
  return { runs, rows };
}
