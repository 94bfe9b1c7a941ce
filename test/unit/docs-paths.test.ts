/**
 * Every repository path the documentation cites exists: a backticked `src/…`, `commands/…`, `profiles/…`, `test/…`,
 * `bench/…`, `docs/…`, `bin/…`, `scripts/…`, `engines/…` or `.ci/…` (alone, or a word of a command line) in README.md and docs/**\/*.md names a file or
 * folder of this tree (a line number or an anchor after it is allowed). A moved or renamed file fails here until
 * the docs follow it. Paths with a placeholder (`<kind>`, `…`, `*`) are patterns, not paths, and are skipped; the
 * few examples that are not in the tree by design are listed below with the reason.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const PREFIXES = ['src/', 'commands/', 'profiles/', 'test/', 'bench/', 'docs/', 'bin/', 'scripts/', 'engines/', '.ci/'];

/** Cited on purpose though not in the tree: doc → path → why. */
const NOT_IN_THE_TREE: Record<string, string> = {
  'profiles/acme/': 'the example provider of the "add a provider" checklist (docs/architecture.md)',
  'docs/protocols/acme.md': 'the protocol page that checklist asks a new provider to write',
  'bench/results.local.md': "where `npm run bench` writes a machine's own results; not committed",
  'engines/llama/node_modules': 'made by `npm run engine:install`; not committed',
  'test/integration/config.ts': "a path in IBM's watsonx-ai-node-sdk repository, cited in docs/watsonx.md",
  'docs/tracks/granite/bonus/granite-text2sql.md': 'a path in ruslanmv/watsonx-workshop, cited in docs/watsonx.md',
};

function markdownFiles(): string[] {
  const files = ['README.md'];
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) files.push(path);
    }
  };
  walk('docs');
  return files;
}

/** The repository paths a Markdown text cites in backticks, without a trailing `:12`, `#anchor` or sentence stop. */
function citedPaths(markdown: string): string[] {
  const paths: string[] = [];
  for (const [, code] of markdown.matchAll(/`([^`\n]+)`/g)) {
    // Each word of the span: a command line (`npx vitest run test/…`) cites paths too.
    for (const word of (code as string).split(/\s+/)) {
      if (!PREFIXES.some((p) => word.startsWith(p))) continue;
      const path = (word.split(/[:#(),]/)[0] as string).replace(/\.+$/, '');
      if (/[<>*{}…]/.test(path)) continue;
      paths.push(path);
    }
  }
  return paths;
}

describe('paths the docs cite', () => {
  it('finds the paths, not the patterns', () => {
    expect(
      citedPaths(
        'see `src/call/send.ts:40`, `docs/faults.md#drop`, `profiles/<kind>/client/`, `test/unit/…`, `npx vitest run test/lint`.',
      ),
    ).toEqual(['src/call/send.ts', 'docs/faults.md', 'test/lint']);
  });

  it('every path cited in README.md and docs/ exists', () => {
    const missing: string[] = [];
    for (const file of markdownFiles()) {
      for (const path of citedPaths(readFileSync(join(ROOT, file), 'utf8'))) {
        if (Object.hasOwn(NOT_IN_THE_TREE, path)) continue;
        if (!existsSync(join(ROOT, path))) missing.push(`${relative(ROOT, join(ROOT, file))}: ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('each listed exception is still cited', () => {
    const cited = new Set(markdownFiles().flatMap((file) => citedPaths(readFileSync(join(ROOT, file), 'utf8'))));
    const stale = Object.keys(NOT_IN_THE_TREE).filter((path) => !cited.has(path));
    expect(stale).toEqual([]);
  });
});
