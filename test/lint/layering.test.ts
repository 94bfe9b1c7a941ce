/**
 * The layering rules of docs/architecture.md (.dependency-cruiser.cjs), run in `npm test`: the real tree has no
 * violation, and a small tree with one import of each forbidden kind (test/fixtures/layering) has exactly those.
 */
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { cruise, type ICruiseOptions, type IForbiddenRuleType, type IReporterOutput } from 'dependency-cruiser';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const FIXTURE = resolve(import.meta.dirname, '../fixtures/layering');
const config = createRequire(import.meta.url)('../../.dependency-cruiser.cjs') as {
  forbidden: IForbiddenRuleType[];
  options: ICruiseOptions;
};

interface Violation {
  rule: string;
  from: string;
  to: string;
}

async function violations(baseDir: string, roots: string[]): Promise<Violation[]> {
  const { tsConfig: _tsConfig, ...options } = config.options as ICruiseOptions & { tsConfig?: unknown };
  const result: IReporterOutput = await cruise(roots, {
    ...options,
    baseDir,
    validate: true,
    ruleSet: { forbidden: config.forbidden },
  });
  if (typeof result.output === 'string') throw new Error('dependency-cruiser gave text instead of a result');
  return result.output.summary.violations.map((v) => ({ rule: v.rule.name, from: v.from, to: v.to }));
}

describe('layering', () => {
  it('the source tree keeps every rule: no cycles, adapters through the registry, client apart from server', async () => {
    expect(await violations(ROOT, ['src', 'commands', 'profiles'])).toEqual([]);
  }, 60_000);

  it('each kind of forbidden import is caught', async () => {
    const found = await violations(FIXTURE, ['src', 'commands', 'profiles']);
    const pairs = found.map((v) => `${v.rule}: ${v.from} → ${v.to}`).sort();
    expect(pairs).toEqual(
      [
        'client-code-never-imports-the-emulator: commands/not-serve.ts → src/emulator/core/start.ts',
        'client-never-imports-server: profiles/acme/client/generate.ts → profiles/acme/server/route.ts',
        'core-sees-adapters-through-the-registry: src/reaches-into-adapter.ts → profiles/acme/client/generate.ts',
        'no-cycles: src/cycle-a.ts → src/cycle-b.ts',
        'providers-stand-apart: profiles/other/client/borrow.ts → profiles/acme/client/generate.ts',
      ].sort(),
    );
  }, 60_000);
});
