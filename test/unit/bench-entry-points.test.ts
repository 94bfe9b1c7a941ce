import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// The bench and build scripts bundle source files by path; a moved file must fail here, not in the next bench run.
const root = resolve(import.meta.dirname, '../..');

describe('source files the bench and build scripts bundle', () => {
  it('all exist', () => {
    const named = ['bench', 'scripts'].flatMap((dir) =>
      readdirSync(join(root, dir))
        .filter((f) => f.endsWith('.mjs'))
        .flatMap((f) =>
          [
            ...readFileSync(join(root, dir, f), 'utf8').matchAll(/['"]((?:src|profiles|commands)\/[\w./-]+\.ts)['"]/g),
          ].map((m) => `${dir}/${f}: ${m[1]}`),
        ),
    );
    expect(named.length).toBeGreaterThan(3);
    expect(named.filter((n) => !existsSync(join(root, n.split(': ')[1] as string)))).toEqual([]);
  });
});
