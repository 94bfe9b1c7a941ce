import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { transformSync } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The reasons for src/contract/lazy-property.ts and src/contract/live-set.ts, checked on the running Node: short-lived
// objects made their way are freed by the scavenger, where an object literal's getter or a long-lived Set's churn
// keeps them (and all they reach) until a full collection. Each form runs in a child process under --trace-gc-nvp,
// which prints the bytes each scavenge promoted to the old generation.
const MB = 1024 * 1024;
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'textgen-scavenge-'));
  for (const name of ['lazy-property', 'live-set']) {
    const source = readFileSync(join(__dirname, '..', '..', 'src', 'contract', `${name}.ts`), 'utf8');
    writeFileSync(join(dir, `${name}.mjs`), transformSync(source, { loader: 'ts', format: 'esm' }).code);
  }
  // 400 000 short-lived objects, each reaching a 64-number payload; at most 64 of them alive at any time.
  writeFileSync(
    join(dir, 'driver.mjs'),
    `import { withLazy } from './lazy-property.mjs';
     import { LiveSet } from './live-set.mjs';
     const mode = process.argv[2];
     const set = new Set(), live = new LiveSet(), recent = [];
     // The owner lives long, as a server's does: a few scavenges move it to the old generation first.
     for (let k = 0; k < 5; k++) { const junk = []; for (let j = 0; j < 200000; j++) junk.push({ j }); }
     let sink = 0;
     for (let i = 0; i < 400000; i++) {
       const payload = new Array(64).fill(i);
       const read = () => payload.length;
       let o;
       if (mode === 'literal') o = { id: i, get n() { return read(); } };
       else if (mode === 'lazy') o = withLazy({ id: i }, 'n', read);
       else o = { id: i, payload };
       if (mode === 'set') { set.add(o); recent.push(o); if (recent.length > 64) set.delete(recent.shift()); }
       if (mode === 'live-set') { recent.push(live.add(o)); if (recent.length > 64) live.delete(recent.shift()); }
       if (mode === 'plain') { recent.push(o); if (recent.length > 64) recent.shift(); }
       sink += o.id;
       if (i % 1000 === 0 && 'n' in o) sink += o.n;
     }
     if (sink === 0) console.log('never');`,
  );
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Bytes promoted by all scavenges of one run of the driver. */
function promoted(mode: string): number {
  const out = execFileSync(process.execPath, ['--trace-gc-nvp', join(dir, 'driver.mjs'), mode], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '' },
  });
  let total = 0;
  for (const line of out.split('\n'))
    if (line.includes('gc=s ')) total += Number(/ promoted=(\d+)/.exec(line)?.[1] ?? 0);
  return total;
}

const node20 = process.versions.node.startsWith('20.');

/**
 * Compared with plain objects in the same run (what the warm-up promotes moves with the machine's load): the
 * helper's excess stays within a third of the pinning form's, which on Node 20's V8 is tens of MB (113 MB for a
 * literal getter, 83 for a churned Set, against 14 for plain objects, measured quiet), so that each test shows the
 * difference it exists for (the pinning form's excess must be at least 8 MB). Elsewhere the pinning form may not
 * pin; the helper still must not.
 */
function expectFreed(helperForm: string, pinningForm: string): void {
  // Each form three times, interleaved, the smallest kept: a busy machine only ever adds promotions (up to ~12 MB
  // a run; twice was not enough once, in a clean-clone CI run right after the bench: 25.9 MB for the helper).
  const forms = [helperForm, 'plain', pinningForm];
  const runs = [...forms, ...forms, ...forms].map(promoted);
  const [helper, plain, pinning] = forms.map((_, i) => Math.min(...runs.filter((_, j) => j % 3 === i))) as [
    number,
    number,
    number,
  ];
  const seen = `promoted MB: ${helperForm} ${(helper / MB).toFixed(1)}, plain ${(plain / MB).toFixed(1)}, ${pinningForm} ${(pinning / MB).toFixed(1)}`;
  if (node20) {
    // Quiet, the excess is 70–100 MB; under a busy machine it shrank to 17 MB once (plain objects promote more).
    expect(pinning - plain, seen).toBeGreaterThan(8 * MB);
    expect(helper - plain, seen).toBeLessThan((pinning - plain) / 3);
  } else expect(helper - plain, seen).toBeLessThan(20 * MB);
}

describe('objects the scavenger can free (lazy-property.ts, live-set.ts)', () => {
  it('withLazy: a dead object and what its reader reaches are not promoted; a literal getter promotes them', () => {
    expectFreed('lazy', 'literal');
  });

  it('LiveSet: members that left are not promoted; a long-lived Set promotes them', () => {
    expectFreed('live-set', 'set');
  });
});
