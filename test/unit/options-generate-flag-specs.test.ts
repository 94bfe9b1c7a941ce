import { readFileSync } from 'node:fs';
import { Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { GENERATE_FLAG_SPECS, GRANULAR_PARAMETER_FLAGS } from '../../src/options/generate-flag-specs.js';
import { knownFieldsAt, parametersSchema } from '../../src/options/schemas.js';

// docs/design.md §1: exactly cpd-cli's flags, plus ours.
const DESIGN_FLAGS = [
  '--id-or-name',
  '--input',
  '--input-file',
  '--moderations',
  '--parameters',
  '--parameters-decoding-method',
  '--parameters-include-stop-sequence',
  '--parameters-length-penalty',
  '--parameters-max-new-tokens',
  '--parameters-min-new-tokens',
  '--parameters-prompt-variables',
  '--parameters-random-seed',
  '--parameters-repetition-penalty',
  '--parameters-return-options',
  '--parameters-stop-sequences',
  '--parameters-temperature',
  '--parameters-time-limit',
  '--parameters-top-k',
  '--parameters-top-p',
  '--parameters-truncate-input-tokens',
  '--parameters-typical-p',
  '--stream',
  '--raw',
  '--extra',
  '--model-version',
  '--ignore-unsupported',
  // Issue 5: the logprob colours.
  '--show-logprobs',
];

const longName = (flags: string) => flags.split(/[ ,]+/)[0]!;

describe('generate flag specs', () => {
  it('declares every flag of docs/design.md §1 once, and nothing else', () => {
    expect(GENERATE_FLAG_SPECS.map((s) => longName(s.flags)).sort()).toEqual([...DESIGN_FLAGS].sort());
  });

  it('gives every flag a short help text', () => {
    for (const spec of GENERATE_FLAG_SPECS) {
      expect(spec.description.length, spec.flags).toBeGreaterThan(10);
      expect(spec.description.length, spec.flags).toBeLessThan(130);
    }
  });

  it('lists the sixteen granular flags, each with a spec', () => {
    expect(GRANULAR_PARAMETER_FLAGS).toHaveLength(16);
    const declared = new Set(GENERATE_FLAG_SPECS.map((s) => longName(s.flags)));
    for (const g of GRANULAR_PARAMETER_FLAGS) expect(declared.has(g.flag), g.flag).toBe(true);
  });

  it.each(GRANULAR_PARAMETER_FLAGS.map((g) => [g.flag, g] as const))(
    '%s: key is the name commander stores it under',
    (_flag, g) => {
      const spec = GENERATE_FLAG_SPECS.find((s) => longName(s.flags) === g.flag)!;
      expect(new Option(spec.flags, spec.description).attributeName()).toBe(g.key);
    },
  );

  it('maps each granular flag to a distinct field the parameters schema knows', () => {
    const fields = GRANULAR_PARAMETER_FLAGS.map((g) => g.field);
    expect(new Set(fields).size).toBe(16);
    expect([...fields].sort()).toEqual(knownFieldsAt(parametersSchema(), []).sort());
  });

  it('takes a value in the placeholder that fits the kind', () => {
    for (const g of GRANULAR_PARAMETER_FLAGS) {
      const spec = GENERATE_FLAG_SPECS.find((s) => longName(s.flags) === g.flag)!;
      const placeholder = spec.flags.slice(g.flag.length).trim();
      const expected = { bool: '[bool]', json: '<json|@file>', list: '<list>', enum: '<greedy|sample>' }[
        g.kind as string
      ];
      if (expected) expect(placeholder, g.flag).toBe(expected);
      else expect(placeholder, g.flag).toMatch(/^<(int|number|ms)>$/);
    }
  });

  it('marks only --parameters-stop-sequences repeatable', () => {
    expect(GENERATE_FLAG_SPECS.filter((s) => 'repeatable' in s).map((s) => longName(s.flags))).toEqual([
      '--parameters-stop-sequences',
    ]);
  });

  it('stays cheap to load for --help: the module imports types, and values only from src/command.ts, which imports nothing', () => {
    const lines = (file: string) =>
      readFileSync(new URL(file, import.meta.url), 'utf8')
        .split('\n')
        .filter((line) => /^import\s/.test(line));
    const imports = lines('../../src/options/generate-flag-specs.ts');
    expect(imports.length).toBeGreaterThan(0);
    for (const line of imports) expect(line).toMatch(/^import type |from '\.\.\/command\.js';$/);
    expect(lines('../../src/command.ts')).toEqual([]);
  });
});
