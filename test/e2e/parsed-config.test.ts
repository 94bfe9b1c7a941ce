// The user config as last validated (src/config/parsed-cache.ts), through the built CLI: recorded once, used while
// the file is unchanged, never stale, never a copy of a literal credential, and refused when someone else could have
// written it. Also: the first run, which parsed the file, leaves the command's V8 code cache to the next one
// (src/contract/code-cache-coverage.ts), and the bundles are written inside the wrapper the launcher compiles.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WRAP_HEAD, WRAP_TAIL } from '../../src/cli/launch/compile-cache.js';
import { BIN, makeHome, runBin } from '../helpers/run-cli.js';

const home = makeHome();
const tmp = mkdtempSync(join(tmpdir(), 'textgen-tmpdir-'));
afterAll(() => {
  home.cleanup();
  rmSync(tmp, { recursive: true, force: true });
});

const configFile = join(home.env.XDG_CONFIG_HOME as string, 'textgen', 'config.yaml');
const recordDir = join(home.env.XDG_CACHE_HOME as string, 'textgen', 'parsed-config');
const env = { ...home.env, TMPDIR: tmp, BENCH_KEY: 'k' };
const args = [
  '--profile',
  'bench',
  '--dry-run',
  'deployment',
  'text-generate',
  '--id-or-name',
  'demo',
  '--input',
  'hi',
];
const writeConfig = (url: string, auth = 'key_env: BENCH_KEY') =>
  writeFileSync(
    configFile,
    `profiles:\n  bench:\n    provider: azure-openai\n    url: ${url}\n    auth:\n      type: api-key\n      ${auth}\n`,
  );
const records = () => {
  try {
    return readdirSync(recordDir);
  } catch {
    return [];
  }
};
const codeCaches = () => readdirSync(tmp).flatMap((d) => readdirSync(join(tmp, d)));

describe('the parsed user config', () => {
  it('is recorded on the first run, used while the file is unchanged, and never stale', async () => {
    mkdirSync(join(home.env.XDG_CONFIG_HOME as string, 'textgen'), { recursive: true });
    writeConfig('http://127.0.0.1:9/');
    const first = await runBin(args, { env });
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stdout).toContain("'http://127.0.0.1:9/openai/deployments/demo/completions");
    const [name] = records();
    const record = join(recordDir, name as string);
    expect(statSync(record).mode & 0o777).toBe(0o600);
    expect(statSync(recordDir).mode & 0o777).toBe(0o700);
    // The run that parsed the file wrote no code cache (it would carry yaml and zod into every later run)...
    expect(codeCaches().filter((f) => f.includes('deployment_text_generate'))).toEqual([]);

    const second = await runBin(args, { env });
    expect(second).toEqual(first);
    // ... the next one did.
    expect(codeCaches().filter((f) => f.includes('deployment_text_generate')).length).toBeGreaterThan(0);

    // Used, not re-parsed: a record changed behind textgen's back (same hash of the text) is what the run sees.
    const body = JSON.parse(readFileSync(record, 'utf8'));
    body.config.profiles.bench.url = 'http://127.0.0.1:8/';
    writeFileSync(record, JSON.stringify(body), { mode: 0o600 });
    expect((await runBin(args, { env })).stdout).toContain("'http://127.0.0.1:8/openai");
    // Not when someone else could have written it.
    chmodSync(record, 0o666);
    expect((await runBin(args, { env })).stdout).toContain("'http://127.0.0.1:9/openai");

    // An edited file is read again, and recorded again.
    writeConfig('http://127.0.0.1:7/');
    const edited = await runBin(args, { env });
    expect(edited.stdout).toContain("'http://127.0.0.1:7/openai");
    expect(JSON.parse(readFileSync(record, 'utf8')).config.profiles.bench.url).toBe('http://127.0.0.1:7/');
    expect(statSync(record).mode & 0o777).toBe(0o600);
  });

  it('is never recorded when the file holds a literal credential', async () => {
    rmSync(recordDir, { recursive: true, force: true });
    writeConfig('http://127.0.0.1:9/', 'key: sk-LITERAL-SENTINEL');
    chmodSync(configFile, 0o600);
    const r = await runBin(args, { env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(records()).toEqual([]);
  });

  it('a config error is reported as before, and not recorded', async () => {
    rmSync(recordDir, { recursive: true, force: true });
    writeFileSync(configFile, 'profiles:\n  bench:\n    provider: nope\n');
    const r = await runBin(args, { env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/config\.yaml: profiles\.bench\.provider/);
    expect(records()).toEqual([]);
  });
});

describe('the bundles', () => {
  it('are written inside the CommonJS wrapper that the launcher compiles', () => {
    const dist = join(BIN, '..', '..', 'dist');
    const bundles = readdirSync(dist).filter((f) => f.endsWith('.cjs') && f !== 'launch.cjs');
    expect(bundles.length).toBeGreaterThan(3);
    for (const f of bundles) {
      const text = readFileSync(join(dist, f), 'latin1');
      expect(text.startsWith(WRAP_HEAD), f).toBe(true);
      expect(text.endsWith(WRAP_TAIL), f).toBe(true);
    }
  });
});
