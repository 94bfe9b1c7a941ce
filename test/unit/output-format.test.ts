import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/contract/errors.js';
import { parseOutputFormat, renderStructured } from '../../src/output/format.js';
import { applyJmesQuery } from '../../src/output/jmes.js';

describe('parseOutputFormat', () => {
  it.each([
    { value: undefined, format: 'text' },
    { value: 'text', format: 'text' },
    { value: 'table', format: 'text' },
    { value: 'TABLE', format: 'text' },
    { value: 'json', format: 'json' },
    { value: 'JSON', format: 'json' },
    { value: 'jsonl', format: 'jsonl' },
    { value: 'Yaml', format: 'yaml' },
  ])('accepts $value as $format', ({ value, format }) => {
    expect(parseOutputFormat(value)).toBe(format);
  });

  it.each(['xml', '', 'yml', 'json '])('rejects %j with a usage error listing the formats', (value) => {
    expect(() => parseOutputFormat(value)).toThrow(UsageError);
    expect(() => parseOutputFormat(value)).toThrow(
      `--output must be one of text, json, jsonl, yaml (got ${JSON.stringify(value)})`,
    );
  });

  it('quotes the rejected value exactly as given', () => {
    expect(() => parseOutputFormat('xml')).toThrow('--output must be one of text, json, jsonl, yaml (got "xml")');
  });
});

describe('renderStructured', () => {
  const result = { model_id: 'm', results: [{ generated_text: 'Hi\nthere', generated_token_count: 2 }] };

  it.each([
    {
      name: 'json is pretty-printed with two spaces',
      format: 'json' as const,
      value: result,
      expected: `${JSON.stringify(result, null, 2)}\n`,
    },
    {
      name: 'jsonl is one compact line',
      format: 'jsonl' as const,
      value: result,
      expected: `${JSON.stringify(result)}\n`,
    },
    { name: 'a string is JSON-quoted in json', format: 'json' as const, value: 'a "b"', expected: '"a \\"b\\""\n' },
    { name: 'undefined is null in json', format: 'json' as const, value: undefined, expected: 'null\n' },
    { name: 'null is null in json', format: 'json' as const, value: null, expected: 'null\n' },
    { name: 'undefined is null in jsonl', format: 'jsonl' as const, value: undefined, expected: 'null\n' },
    {
      name: 'yaml uses block style',
      format: 'yaml' as const,
      value: { a: 1, b: ['x', 'y'] },
      expected: 'a: 1\nb:\n  - x\n  - y\n',
    },
    { name: 'undefined is null in yaml', format: 'yaml' as const, value: undefined, expected: 'null\n' },
    { name: 'a scalar in yaml ends with a newline', format: 'yaml' as const, value: 42, expected: '42\n' },
  ])('$name', async ({ format, value, expected }) => {
    expect(await renderStructured(value, format, {})).toBe(expected);
  });

  it('yaml output parses back to the same value', async () => {
    const { parse } = await import('yaml');
    const text = await renderStructured(result, 'yaml', {});
    expect(text.endsWith('\n')).toBe(true);
    expect(parse(text)).toEqual(result);
  });

  it.each(['json', 'jsonl', 'yaml'] as const)('--raw-output prints a string result bare in %s', async (format) => {
    expect(await renderStructured('Hello "world"', format, { rawOutput: true })).toBe('Hello "world"\n');
  });

  it.each(['json', 'jsonl', 'yaml'] as const)(
    '--raw-output changes nothing for a non-string result in %s',
    async (format) => {
      for (const value of [result, 3, true, null, ['a']]) {
        expect(await renderStructured(value, format, { rawOutput: true })).toBe(
          await renderStructured(value, format, {}),
        );
      }
    },
  );
});

describe('applyJmesQuery', () => {
  const result = {
    model_id: 'google/flan-t5-xxl',
    results: [{ generated_text: 'Paris', generated_token_count: 1, stop_reason: 'eos_token' }],
    missing: undefined,
  };

  it.each([
    { expression: 'results[0].generated_text', expected: 'Paris' },
    { expression: 'results[].stop_reason', expected: ['eos_token'] },
    {
      expression: '{model: model_id, tokens: results[0].generated_token_count}',
      expected: { model: 'google/flan-t5-xxl', tokens: 1 },
    },
    { expression: 'nothing_here', expected: null },
    { expression: 'length(results)', expected: 1 },
    { expression: 'keys(@)', expected: ['model_id', 'results'] },
  ])('$expression', async ({ expression, expected }) => {
    expect(await applyJmesQuery(result, expression)).toEqual(expected);
  });

  it('queries an undefined value as null', async () => {
    expect(await applyJmesQuery(undefined, '@')).toBeNull();
  });

  it('a syntax error is a usage error naming the flag, the expression and the reason', async () => {
    const error = await applyJmesQuery(result, 'results[').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toMatch(/^-j\/--jmes-query: invalid expression "results\[": \S/);
  });

  it.each(['nope(@)', 'abs(model_id)', 'length(@, @)'])(
    'an expression that fails to evaluate (%s) is a usage error',
    async (expression) => {
      const error = await applyJmesQuery(result, expression).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UsageError);
      expect((error as UsageError).message).toContain(
        `-j/--jmes-query: cannot evaluate ${JSON.stringify(expression)}: `,
      );
    },
  );
});
