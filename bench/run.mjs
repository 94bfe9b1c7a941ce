#!/usr/bin/env node
// Cold-start benchmark: every figure is a ratio against `node -e 0` measured in the same run.
// Usage: npm run bench  (writes bench/results.md and prints the table)
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin', 'textgen.js');
const runs = Number(process.env.BENCH_RUNS ?? 15);

function time(args) {
  const samples = [];
  for (let i = 0; i < runs + 2; i++) {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'ignore'], env: { ...process.env, CI: 'true' } });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}`);
    if (i >= 2) samples.push(ms); // the first two warm the file cache
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)];
}

const baseline = time(['-e', '0']);
const cases = [
  ['textgen --version', [bin, '--version'], 1.5],
  ['textgen --help', [bin, '--help'], 2],
  ['textgen deployment text-generate --help', [bin, 'deployment', 'text-generate', '--help'], 2],
];
const rows = [['node -e 0 (baseline)', baseline, 1, '']];
for (const [name, args, target] of cases) {
  const ms = time(args);
  rows.push([name, ms, ms / baseline, `≤ ${target}×`]);
}
const lines = [
  `# Benchmark results`,
  '',
  `Median of ${runs} runs, ${new Date().toISOString()}, node ${process.version}.`,
  '',
  '| case | median ms | ratio to baseline | target |',
  '|---|---:|---:|---|',
  ...rows.map(([n, ms, r, t]) => `| ${n} | ${ms.toFixed(1)} | ${r.toFixed(2)}× | ${t} |`),
  '',
];
writeFileSync(join(root, 'bench', 'results.md'), lines.join('\n'));
console.log(lines.join('\n'));
