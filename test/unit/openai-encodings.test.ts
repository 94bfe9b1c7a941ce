import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/contract/errors.js';
import {
  encodingForModel,
  parseEncodingFlag,
  resolveOpenAiEncoding,
  type OpenAiEncoding,
} from '../../src/tokenizers/openai-encodings.js';

describe('the model → encoding table', () => {
  it.each<[string, OpenAiEncoding]>([
    ['davinci', 'r50k_base'],
    ['curie', 'r50k_base'],
    ['babbage', 'r50k_base'],
    ['ada', 'r50k_base'],
    ['text-ada-001', 'r50k_base'],
    ['text-babbage-001', 'r50k_base'],
    ['text-curie-001', 'r50k_base'],
    ['text-davinci-001', 'r50k_base'],
    ['text-davinci-002', 'p50k_base'],
    ['text-davinci-003', 'p50k_base'],
    ['code-davinci-002', 'p50k_base'],
    ['code-cushman-001', 'p50k_base'],
    ['gpt-35-turbo', 'cl100k_base'],
    ['gpt-35-turbo-instruct', 'cl100k_base'],
    ['gpt-35-turbo-16k', 'cl100k_base'],
    ['gpt-3.5-turbo', 'cl100k_base'],
    ['gpt-3.5-turbo-instruct', 'cl100k_base'],
    ['gpt-4', 'cl100k_base'],
    ['gpt-4-32k', 'cl100k_base'],
    ['gpt-4-turbo', 'cl100k_base'],
    ['GPT-4', 'cl100k_base'],
    ['text-embedding-ada-002', 'cl100k_base'],
    ['text-embedding-3-small', 'cl100k_base'],
    ['text-embedding-3-large', 'cl100k_base'],
    ['davinci-002', 'cl100k_base'],
    ['babbage-002', 'cl100k_base'],
    ['gpt-4o', 'o200k_base'],
    ['gpt-4o-mini', 'o200k_base'],
    ['gpt-4o-2024-08-06', 'o200k_base'],
    ['chatgpt-4o-latest', 'o200k_base'],
    ['gpt-4.1', 'o200k_base'],
    ['gpt-4.1-nano', 'o200k_base'],
    ['gpt-4.5-preview', 'o200k_base'],
    ['gpt-5', 'o200k_base'],
    ['gpt-5-mini', 'o200k_base'],
    ['o1', 'o200k_base'],
    ['o1-mini', 'o200k_base'],
    ['o3-mini', 'o200k_base'],
    ['o4-mini', 'o200k_base'],
    ['ft:gpt-4o-mini-2024-07-18:acme::abc123', 'o200k_base'],
    ['ft:gpt-3.5-turbo:acme::x', 'cl100k_base'],
  ])('%s → %s', (model, encoding) => {
    expect(encodingForModel(model)).toBe(encoding);
  });

  it.each([
    'ibm/granite-13b-instruct-v2',
    'luminous-base',
    'demo',
    'my-gpt4-deployment',
    'gpt-40',
    'davinci-003',
    'adam',
  ])('%s has no public encoding', (model) => {
    expect(encodingForModel(model)).toBeUndefined();
  });
});

describe('choosing the encoding to tokenize offline with', () => {
  it('--encoding wins over the model', () => {
    expect(
      resolveOpenAiEncoding({
        flag: 'r50k_base',
        model: 'gpt-4o',
        provider: 'azure-openai',
        purpose: 'to tokenize offline',
      }),
    ).toBe('r50k_base');
  });

  it('an unknown --encoding is a usage error listing the four', () => {
    expect(() => parseEncodingFlag('cl100k')).toThrow(UsageError);
    expect(() => parseEncodingFlag('cl100k')).toThrow(
      '--encoding must be one of r50k_base, p50k_base, cl100k_base, o200k_base, got "cl100k"',
    );
  });

  it('an unknown model is a usage error that suggests --encoding', () => {
    let error: unknown;
    try {
      resolveOpenAiEncoding({ model: 'my-deployment', provider: 'azure-openai', purpose: 'to tokenize offline' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toBe(
      'no public encoding is known for azure-openai model "my-deployment" to tokenize offline',
    );
    expect((error as UsageError).hint).toMatch(/--encoding NAME/);
  });

  it('no model and no encoding is a usage error naming both flags', () => {
    expect(() => resolveOpenAiEncoding({ provider: 'openai', purpose: 'to tokenize offline' })).toThrow(
      /give --model NAME or --encoding NAME/,
    );
  });
});
