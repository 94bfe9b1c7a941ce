/**
 * vitest global setup: builds dist/ with the package's own `npm run build` before any test that may run the built
 * bin/textgen.js, so `npx vitest run` never tests a stale build. The build script is called rather than tsc, so a
 * change to how the package is built needs no change here.
 *
 * The build is skipped only when nothing it could read has changed since this setup last ran it and dist/ is as that
 * build left it: a stamp (under node_modules/.cache, never shipped) records when it ran and what dist/ looked like.
 * What the build could read is every file of the repository outside the folders it never reads (tests, docs,
 * benchmarks, dependencies) — directories included, so a deleted source counts as a change.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
const DIST = join(ROOT, 'dist');
const STAMP = join(ROOT, 'node_modules', '.cache', 'textgen-tests', 'dist-stamp.json');
const NOT_BUILD_INPUTS = new Set([
  '.git',
  'node_modules',
  'dist',
  'test',
  'docs',
  'bench',
  'coverage',
  '.vitest-cache',
]);

interface Tree {
  files: number;
  newestMs: number;
}

function walk(dir: string, skip: ReadonlySet<string> = new Set()): Tree {
  const tree: Tree = { files: 0, newestMs: statSync(dir).mtimeMs };
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (skip.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const sub = walk(path);
      tree.files += sub.files;
      tree.newestMs = Math.max(tree.newestMs, sub.newestMs);
    } else if (!entry.name.endsWith('.md')) {
      tree.files += 1;
      tree.newestMs = Math.max(tree.newestMs, statSync(path).mtimeMs);
    }
  }
  return tree;
}

function distTree(): Tree | undefined {
  try {
    return walk(DIST);
  } catch {
    return undefined;
  }
}

interface Stamp {
  builtAtMs: number;
  dist: Tree;
}

function upToDate(): boolean {
  let stamp: Stamp;
  try {
    stamp = JSON.parse(readFileSync(STAMP, 'utf8')) as Stamp;
  } catch {
    return false;
  }
  const dist = distTree();
  if (dist === undefined || dist.files !== stamp.dist.files || dist.newestMs !== stamp.dist.newestMs) return false;
  return walk(ROOT, NOT_BUILD_INPUTS).newestMs < stamp.builtAtMs;
}

export default function buildDist(): void {
  if (upToDate()) return;
  // Under npm (npm test, npx vitest) npm_execpath is npm's own script: run it with this node, whatever PATH holds.
  const npmCli = process.env.npm_execpath;
  const [file, args] = npmCli?.endsWith('.js')
    ? [process.execPath, [npmCli, 'run', 'build']]
    : ['npm', ['run', 'build']];
  const startedMs = Date.now();
  try {
    execFileSync(file, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  } catch (e) {
    const { stdout = '', stderr = '' } = e as { stdout?: string; stderr?: string };
    throw new Error(`npm run build failed, so the tests that run bin/textgen.js cannot run:\n${stdout}${stderr}`);
  }
  const dist = distTree();
  if (dist === undefined) throw new Error('npm run build left no dist/ folder');
  mkdirSync(join(STAMP, '..'), { recursive: true });
  // The start of the build, not its end: a source saved while it ran is newer than the stamp and triggers a rebuild.
  writeFileSync(STAMP, `${JSON.stringify({ builtAtMs: startedMs, dist } satisfies Stamp)}\n`);
  console.log(`dist/ built by npm run build in ${((Date.now() - startedMs) / 1000).toFixed(1)} s`);
}
