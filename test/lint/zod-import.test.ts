import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/*
 * zod is imported one way everywhere: `import * as z from 'zod'`, statically. The bundler then resolves each `z.x`
 * to zod's own function and leaves out what nothing uses. A dynamic `import('zod')` or `import { z } from 'zod'`
 * makes it build zod's whole namespace instead — 1 252 export getters, run at the top of dist/run.cjs on every
 * command, and every locale bundled (docs/performance.md, "Start-up").
 */
const root = resolve(import.meta.dirname, '../..');
const FORBIDDEN = [/import\(\s*['"]zod['"]\s*\)/, /import\s*\{[^}]*\bz\b[^}]*\}\s*from\s*['"]zod['"]/];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

describe('how the code imports zod', () => {
  it('as a static namespace import, never a dynamic one nor its `z` re-export', () => {
    const offenders = ['src', 'commands', 'profiles'].flatMap((d) =>
      sources(join(root, d)).flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .flatMap((line, i) =>
            // Type positions (`import('zod').ZodType`) load nothing.
            FORBIDDEN.some((re) => re.test(line)) && !/import\('zod'\)\.\w/.test(line)
              ? [`${relative(root, file)}:${i + 1}: ${line.trim()}`]
              : [],
          ),
      ),
    );
    expect(offenders).toEqual([]);
  });

  it('catches both forbidden forms', () => {
    expect(FORBIDDEN.some((re) => re.test("  const { z } = await import('zod');"))).toBe(true);
    expect(FORBIDDEN.some((re) => re.test("import { z } from 'zod';"))).toBe(true);
    expect(FORBIDDEN.some((re) => re.test("import * as z from 'zod';"))).toBe(false);
  });
});
