import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PLAIN_PARAMETER_ORDER, plainParameters } from '../../src/options/plain-parameters.js';
import { knownFieldsAt, parametersSchema } from '../../src/options/schemas.js';

const FIELDS = knownFieldsAt(parametersSchema(), []);

/** Values around every field's range and of every JSON kind. */
const anyValue = fc.oneof(
  fc.constantFrom(0, -0, 1, 2, 5, 6, 100, 101, -1, 0.5, 1, 1.5, 2, 2.5, Number.MAX_SAFE_INTEGER, true, false, null),
  fc.constantFrom(Number.MAX_SAFE_INTEGER + 2, Number.NaN, Number.POSITIVE_INFINITY, 1e-300, 0.999999),
  fc.constantFrom('greedy', 'sample', '', 'x', 'GREEDY'),
  fc.array(fc.constantFrom('', 'stop', '\n', 1), { maxLength: 8 }),
  fc.dictionary(fc.constantFrom('decay_factor', 'start_index', 'city'), fc.constantFrom(0, 3, 'x')),
  fc.double(),
  fc.integer(),
);
const parameters = fc.dictionary(fc.oneof(fc.constantFrom(...FIELDS), fc.constantFrom('max_tokens')), anyValue, {
  maxKeys: 6,
});

describe('plainParameters: the parameters schema without zod, for values it can vouch for', () => {
  it('lists the fields in the schema order', () => {
    expect(PLAIN_PARAMETER_ORDER).toEqual(FIELDS);
  });

  it('accepts only what the schema accepts, and returns exactly what its parse returns (key order included)', () => {
    let vouched = 0;
    fc.assert(
      fc.property(fc.oneof(parameters, anyValue), (value) => {
        const plain = plainParameters(value);
        if (plain === undefined) return;
        vouched++;
        const parsed = parametersSchema().safeParse(value);
        expect(parsed.success).toBe(true);
        expect(JSON.stringify(plain)).toBe(JSON.stringify(parsed.data));
        expect(plain).toStrictEqual(parsed.data);
      }),
      { numRuns: 3000 },
    );
    expect(vouched).toBeGreaterThan(100);
  });

  it('vouches for the common requests, and never for a nested object or min above max', () => {
    expect(plainParameters({ max_new_tokens: 1 })).toEqual({ max_new_tokens: 1 });
    expect(
      Object.keys(plainParameters({ temperature: 0.7, decoding_method: 'sample', stop_sequences: ['\n'] }) ?? {}),
    ).toEqual(['decoding_method', 'stop_sequences', 'temperature']);
    expect(plainParameters({ return_options: { input_text: true } })).toBeUndefined();
    expect(plainParameters({ min_new_tokens: 5, max_new_tokens: 2 })).toBeUndefined();
    expect(plainParameters(JSON.parse('{"__proto__": 1}'))).toBeUndefined();
    expect(plainParameters(Object.create({ max_new_tokens: 1 }))).toBeUndefined();
  });

  it('copies arrays: the caller may not share them with its input', () => {
    const stop = ['a'];
    expect(plainParameters({ stop_sequences: stop })?.stop_sequences).not.toBe(stop);
  });
});
