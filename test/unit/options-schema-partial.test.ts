import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { knownFieldsAt, parametersSchema, parametersSchemaFor } from '../../src/options/schemas.js';
import { validateOption, within } from '../../src/options/validate-option.js';

const FIELDS = knownFieldsAt(parametersSchema(), []);

/** Values of every JSON kind, including the ones each field accepts and edge cases around its ranges. */
const anyValue = fc.oneof(
  fc.constantFrom(0, 1, 2, 5, 6, 100, 101, -1, 0.5, 1.5, 2.5, Number.MAX_SAFE_INTEGER + 2, true, false, null),
  fc.constantFrom('greedy', 'sample', '', 'x'),
  fc.array(fc.constantFrom('', 'stop', '\n'), { maxLength: 8 }),
  fc.dictionary(
    fc.constantFrom('decay_factor', 'start_index', 'generated_tokens', 'top_n_tokens', 'city', 'nope'),
    fc.constantFrom(0, 1, 3, 6, true, 'x'),
  ),
  fc.double(),
  fc.integer(),
);
const parameters = fc.dictionary(
  fc.oneof(fc.constantFrom(...FIELDS), fc.constantFrom('max_tokens', 'tokens')),
  anyValue,
  {
    maxKeys: 5,
  },
);

/** What validation gives: the parsed value, or the one-line message. */
function outcome(schema: Parameters<typeof validateOption>[0], value: unknown): unknown {
  try {
    return { ok: validateOption(schema, value, within('--parameters')) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

describe('parametersSchemaFor: the fields a value has, built on first use', () => {
  it('accepts, rejects and words every value exactly as the whole schema does', () => {
    fc.assert(
      fc.property(fc.oneof(parameters, anyValue), (value) => {
        expect(outcome(parametersSchemaFor(value), value)).toEqual(outcome(parametersSchema(), value));
      }),
      { numRuns: 2000 },
    );
  });

  it('checks the rule across fields (min ≤ max new tokens) on the partial schema too', () => {
    const value = { min_new_tokens: 5, max_new_tokens: 2 };
    expect(parametersSchemaFor(value)).not.toBe(parametersSchema());
    expect(outcome(parametersSchemaFor(value), value)).toEqual({
      error: expect.stringContaining('min_new_tokens') as unknown,
    });
  });

  it('uses the whole schema for an unknown field, so the suggestion can name any field', () => {
    expect(parametersSchemaFor({ max_tokens: 3 })).toBe(parametersSchema());
    expect(outcome(parametersSchemaFor({ max_tokens: 3 }), { max_tokens: 3 })).toEqual({
      error: '--parameters: unknown field "max_tokens" (did you mean "max_new_tokens"?)',
    });
  });

  it('builds one schema per set of fields and reuses it', () => {
    expect(parametersSchemaFor({ top_k: 3 })).toBe(parametersSchemaFor({ top_k: 50 }));
    expect(parametersSchemaFor({ top_k: 3, top_p: 0.5 })).toBe(parametersSchemaFor({ top_p: 1, top_k: 1 }));
  });
});
