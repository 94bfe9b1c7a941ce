/**
 * Lost updates (issue 16, item 8), through the built CLI (`npm run build` first): several `profiles add` at once on
 * the same user config each read the file, added their profile and wrote it back — one profile vanished in every
 * round while both said "saved". Under the file's lock none may be lost; a lock left by a crashed process is taken
 * over; no lock file stays behind. The suite ends with one line of figures.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { makeHome, runBin } from '../helpers/run-cli.js';

const figures = { rounds: 0, added: 0, lost: 0 };
const homes: Array<ReturnType<typeof makeHome>> = [];
afterAll(() => {
  for (const h of homes) h.cleanup();
  console.log(
    `lost updates: ${figures.rounds} rounds of concurrent profiles add, ${figures.added} profiles added, ${figures.lost} lost`,
  );
});

const add = (name: string, env: Record<string, string>) =>
  runBin(
    ['profiles', 'add', name, '--provider', 'open-inference', '--url', `http://127.0.0.1:9/${name}`, '--no-check'],
    { env, timeout: 30_000 },
  );

function profilesIn(file: string): string[] {
  const doc = parse(readFileSync(file, 'utf8')) as { profiles?: Record<string, unknown> } | null;
  return Object.keys(doc?.profiles ?? {}).sort();
}

describe('profiles add at the same time on the same file', () => {
  it('10 rounds of 3 concurrent adds: every profile is saved, every add says so, no lock file is left', async () => {
    for (let round = 1; round <= 10; round++) {
      const home = makeHome();
      homes.push(home);
      const names = ['alpha', 'beta', 'gamma'].map((n) => `${n}-${round}`);
      const results = await Promise.all(names.map((n) => add(n, home.env)));
      figures.rounds++;
      const file = join(home.env.XDG_CONFIG_HOME, 'textgen', 'config.yaml');
      const saved = profilesIn(file);
      figures.added += saved.length;
      figures.lost += names.filter((n) => !saved.includes(n)).length;
      for (const r of results) expect(r.exitCode, r.stderr).toBe(0);
      expect(saved, `round ${round}`).toEqual([...names].sort());
      expect(existsSync(`${file}.lock`)).toBe(false);
    }
  }, 120_000);

  it('a lock left by a process that is gone is taken over', async () => {
    const home = makeHome();
    homes.push(home);
    const dir = join(home.env.XDG_CONFIG_HOME, 'textgen');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'config.yaml');
    // A pid far above Linux's default pid_max: no process has it.
    writeFileSync(
      `${file}.lock`,
      JSON.stringify({ pid: 4_194_305, host: (await import('node:os')).hostname(), at: Date.now() }),
    );
    const r = await add('after-crash', home.env);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(profilesIn(file)).toEqual(['after-crash']);
    expect(existsSync(`${file}.lock`)).toBe(false);
  });
});
