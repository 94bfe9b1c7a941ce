/** The tables that declare a flag together with its mapping: each flag once, its key the one commander uses. */
import { Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { longFlag, optionKey, optionSpecs, withoutOptions } from '../../src/command.js';
import { CHAT_OPTION_SPECS, CHAT_PARAMETER_FLAGS } from '../../src/chat/flag-specs.js';
import { BATCH_FLAG_SPECS, BATCH_ONLY_KEYS } from '../../src/options/batch-flag-specs.js';
import { COMPLETE_OPTION_SPECS, COMPLETE_PARAMETER_FLAGS } from '../../src/options/complete-flag-specs.js';

/** complete's rows whose value the command builds under a key of its own (src/options/complete-flag-specs.ts). */
const SYNTHETIC = new Set(['--greedy', '--logprobs']);

describe("complete's parameter flags: one table for flag, argument, help and mapping", () => {
  it.each(COMPLETE_PARAMETER_FLAGS.filter((f) => !SYNTHETIC.has(f.flag)).map((f) => [f.flag, f] as const))(
    '%s: the mapping reads the key commander stores it under',
    (_flag, f) => {
      const spec = COMPLETE_OPTION_SPECS.find((o) => longFlag(o.flags) === f.flag)!;
      expect(new Option(spec.flags, spec.description).attributeName()).toBe(f.key);
    },
  );

  it('the synthetic keys are no flag of complete, so the flag itself never sets them', () => {
    const keys = new Set<string>(COMPLETE_OPTION_SPECS.map((o) => optionKey(o.flags)));
    for (const f of COMPLETE_PARAMETER_FLAGS.filter((g) => SYNTHETIC.has(g.flag))) expect(keys.has(f.key)).toBe(false);
  });

  it('every row is an option of complete, once, with its help, short form and argument', () => {
    for (const f of COMPLETE_PARAMETER_FLAGS) {
      const specs = COMPLETE_OPTION_SPECS.filter((o) => longFlag(o.flags) === f.flag);
      expect(specs, f.flag).toHaveLength(1);
      expect(specs[0]!.description).toBe(f.description);
    }
    expect(COMPLETE_OPTION_SPECS.map((o) => o.flags).slice(1, 10)).toEqual([
      '--max-tokens <n>',
      '--min-tokens <n>',
      '-t, --temperature <x>',
      '--top-p <x>',
      '--top-k <n>',
      '--stop <text>',
      '--seed <n>',
      '--greedy',
      '--logprobs [n]',
    ]);
    expect(COMPLETE_OPTION_SPECS.filter((o) => 'repeatable' in o).map((o) => longFlag(o.flags))).toEqual([
      '--stop',
      '--image',
    ]);
  });
});

describe("chat's parameter flags: one table for flag, argument, help and mapping", () => {
  it.each(CHAT_PARAMETER_FLAGS.map((f) => [f.flag, f] as const))(
    '%s: an option of chat, once, under the key the mapping reads',
    (_flag, f) => {
      const specs = CHAT_OPTION_SPECS.filter((o) => longFlag(o.flags) === f.flag);
      expect(specs).toHaveLength(1);
      expect(new Option(specs[0]!.flags, specs[0]!.description).attributeName()).toBe(f.key);
      expect(specs[0]!.description).toBe(f.description);
    },
  );

  it('the short forms stay those of complete', () => {
    const flags = CHAT_OPTION_SPECS.map((o) => o.flags);
    expect(flags).toContain('-t, --temperature <x>');
    expect(flags).toContain('-n, --choices <count>');
    expect(flags).toContain('--logprobs [n]');
  });
});

describe('shared tables', () => {
  it('the batch-only flags are the batch flags but --batch, under their commander keys', () => {
    expect(BATCH_ONLY_KEYS).toEqual([
      ['concurrency', '--concurrency'],
      ['resume', '--resume'],
      ['shard', '--shard'],
      ['failFast', '--fail-fast'],
    ]);
  });

  it('withoutOptions drops by long flag only (not a flag that merely starts the same)', () => {
    const table = [
      { flags: '--stream [bool]', description: '' },
      { flags: '--stream-options <json>', description: '' },
      { flags: '-s, --stream', description: '' },
    ] as const;
    expect(withoutOptions(table, '--stream').map((o) => o.flags)).toEqual(['--stream-options <json>']);
    expect(withoutOptions(BATCH_FLAG_SPECS, '--batch')).toHaveLength(BATCH_FLAG_SPECS.length - 1);
  });

  it('optionSpecs writes the short form, the flag and its argument, and repeatable only when it is', () => {
    expect(
      optionSpecs([
        { flag: '--temperature', short: '-t', arg: '<x>', description: 'd' },
        { flag: '--greedy', description: 'g' },
        { flag: '--stop', arg: '<text>', description: 's', repeatable: true },
      ]),
    ).toEqual([
      { flags: '-t, --temperature <x>', description: 'd' },
      { flags: '--greedy', description: 'g' },
      { flags: '--stop <text>', description: 's', repeatable: true },
    ]);
  });
});
