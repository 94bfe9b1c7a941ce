/**
 * node-llama-cpp is no dependency of the CLI: it lives in engines/llama (npm run engine:install) or next to an
 * installed textgen. These tests run the built CLI from a copy of the package (bin/, dist/, package.json, and
 * node_modules linked entry by entry to the real one), so nothing of this checkout's engines/ folder is in reach:
 * - without node-llama-cpp, `serve --engine llama` says how to install it, on one line, exit 2;
 * - with a node-llama-cpp that records being loaded, `--version`, `--help` and a request on the deterministic
 *   engine never load it, and `serve --engine llama` does (normal resolution comes first).
 * These need no real llama.cpp, so they run whether the engine is installed or not.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseEnv, makeHome } from '../helpers/run-cli.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** A copy of the built package in a temporary folder; `withFake` puts a recording node-llama-cpp in its node_modules. */
function packageCopy(withFake: boolean): { dir: string; marker: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'textgen-pkg-'));
  cpSync(join(ROOT, 'bin'), join(dir, 'bin'), { recursive: true });
  cpSync(join(ROOT, 'dist'), join(dir, 'dist'), { recursive: true });
  cpSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
  mkdirSync(join(dir, 'node_modules'));
  for (const entry of readdirSync(join(ROOT, 'node_modules'))) {
    if (entry === 'node-llama-cpp' || entry === '.bin') continue;
    symlinkSync(join(ROOT, 'node_modules', entry), join(dir, 'node_modules', entry));
  }
  const marker = join(dir, 'node-llama-cpp-was-loaded');
  if (withFake) {
    const fake = join(dir, 'node_modules', 'node-llama-cpp');
    mkdirSync(fake);
    writeFileSync(
      join(fake, 'package.json'),
      JSON.stringify({ name: 'node-llama-cpp', version: '3.21.1', type: 'module', exports: { '.': './index.js' } }),
    );
    // Records the load, then fails the way a broken native binary would, so the test needs no llama.cpp.
    writeFileSync(
      join(fake, 'index.js'),
      `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, 'loaded');\nthrow new Error('fake node-llama-cpp: no binary');\n`,
    );
  }
  return { dir, marker, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

describe('node-llama-cpp is optional and loaded only for the llama engine', () => {
  let home: ReturnType<typeof makeHome>;
  let bare: ReturnType<typeof packageCopy>;
  let faked: ReturnType<typeof packageCopy>;
  const run = (pkg: { dir: string }, args: string[]) =>
    execa('node', [join(pkg.dir, 'bin', 'textgen.js'), ...args], {
      env: { ...baseEnv(), CI: 'true', ...home.env },
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
      cwd: home.dir,
      timeout: 30_000,
    });

  beforeAll(() => {
    home = makeHome();
    bare = packageCopy(false);
    faked = packageCopy(true);
  });
  afterAll(() => {
    home?.cleanup();
    bare?.cleanup();
    faked?.cleanup();
  });

  it('without it, serve --engine llama names how to install it and exits 2', async () => {
    const r = await run(bare, ['serve', '--port', '0', '--engine', 'llama', '--model', 'model.gguf']);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'error: the llama engine needs node-llama-cpp, which is not installed: install it with npm run engine:install in a textgen checkout, or npm install node-llama-cpp@3.21.1 next to textgen',
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('--version, --help, serve --help and a deterministic request never load it', async () => {
    for (const args of [['--version'], ['--help'], ['serve', '--help'], ['--profile', 'local', 'complete', 'Hello']]) {
      const r = await run(faked, args);
      expect(r.exitCode, `textgen ${args.join(' ')}: ${r.stderr}`).toBe(0);
    }
    expect(existsSync(faked.marker)).toBe(false);
  });

  it('serve --engine llama loads it by normal resolution first; its failure is one line, exit 2', async () => {
    const r = await run(faked, ['serve', '--port', '0', '--engine', 'llama', '--model', 'model.gguf']);
    expect(existsSync(faked.marker)).toBe(true);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(
      /^error: cannot load node-llama-cpp \(install it with .*\): fake node-llama-cpp: no binary$/,
    );
  });
});
