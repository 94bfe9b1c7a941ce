/**
 * The layering rules of docs/architecture.md (.dependency-cruiser.cjs), run in `npm test`: the real tree has no
 * violation, and a small tree with one import of each forbidden kind (test/fixtures/layering) has exactly those:
 * every rule fires on its own fixture, and the fixture's allowed imports (profiles/acme/, src/cli/commands.ts, …)
 * fire none.
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
  it('the source tree keeps every rule: one-way layers, no cycles', async () => {
    expect(await violations(ROOT, ['src', 'commands', 'profiles'])).toEqual([]);
  }, 60_000);

  it('each kind of forbidden import is caught', async () => {
    const found = await violations(FIXTURE, ['src', 'commands', 'profiles']);
    const pairs = found.map((v) => `${v.rule}: ${v.from} → ${v.to}`).sort();
    expect(pairs).toEqual(
      [
        'adapter-interfaces-are-types: src/contract/adapter-operations/runs.ts → src/contract/errors.ts',
        'client-code-never-imports-the-emulator: commands/not-serve.ts → src/emulator/core/router.ts',
        'common-is-client-side: profiles/common/reaches.ts → profiles/acme/client/generate.ts',
        'contract-imports-nothing-else: src/contract/leaks.ts → src/core-feature.ts',
        'core-reaches-providers-through-the-registry: src/reaches-into-adapter.ts → profiles/acme/client/generate.ts',
        'emulator-stands-alone: src/emulator/core/uses-core.ts → src/core-feature.ts',
        'libraries-import-only-the-contract: src/tokenizers/leaks.ts → src/core-feature.ts',
        // The emulator ⇄ provider-server loop: profiles/emulators.ts lists the servers, so a server that reaches back
        // for the protocol table closes a cycle (the real tree has none; docs/architecture.md).
        'no-cycles: profiles/acme/server/index.ts → profiles/acme/server/loops.ts',
        'no-cycles: src/cycle-a.ts → src/cycle-b.ts',
        'nothing-imports-the-composition-root: commands/uses-cli.ts → src/cli/commands.ts',
        'only-the-cli-imports-commands: src/calls-up.ts → commands/hello.ts',
        'only-the-call-pipeline-reads-answers: src/maps-status.ts → src/call/status-error.ts',
        'only-the-call-pipeline-reads-answers: src/reads-sse.ts → src/http/sse-parser.ts',
        'provider-client-maps-only: profiles/acme/client/draws.ts → src/output/paint.ts',
        'provider-client-maps-only: profiles/acme/client/generate.ts → profiles/acme/server/route.ts',
        'provider-client-maps-only: profiles/other/client/borrow.ts → profiles/acme/client/generate.ts',
        'provider-server-uses-the-framework: profiles/acme/server/uses-core.ts → src/core-feature.ts',
        'provider-tables-list-providers: profiles/emulators.ts → profiles/common/helper.ts',
        'routes-use-the-engine-seam: profiles/acme/server/uses-engine.ts → src/emulator/engine/deterministic.ts',
        'server-common-is-server-side: profiles/server-common/uses-client.ts → profiles/acme/client/generate.ts',
      ].sort(),
    );
  }, 60_000);
});
