import { describe, expect, it } from 'vitest';
import { alephAlphaTokenize } from '../../profiles/aleph-alpha/client/tokenize.js';
import { watsonxTokenize } from '../../profiles/watsonx/client/tokenize.js';
import { UsageError } from '../../src/contract/errors.js';
import { adapterFor } from '../../profiles/registry.js';
import { UnexpectedAnswer } from '../../src/contract/errors.js';
import type { TokenizeRequest } from '../../src/contract/adapter.js';
import {
  alephAlphaDetokenizationRequestSchema,
  alephAlphaTokenizationRequestSchema,
  watsonxTokenizationRequestSchema,
} from '../contract/tokenize-schemas.js';
import { testProfile } from '../helpers/profile.js';

const ASK = (over: Partial<TokenizeRequest> = {}): TokenizeRequest => ({
  model: 'm',
  text: 'Hello',
  tokens: false,
  ids: false,
  ...over,
});

describe('which providers have tokenize endpoints', () => {
  it.each([
    ['watsonx', watsonxTokenize],
    ['aleph-alpha', alephAlphaTokenize],
    ['azure-openai', undefined],
    ['openai', undefined],
    ['open-inference', undefined],
  ] as const)('%s', async (kind, op) => {
    expect(await adapterFor(kind).tokenize?.()).toBe(op);
  });
});

describe('watsonx tokenization on the wire', () => {
  const wx = testProfile({ provider: 'watsonx', url: 'https://wx.test', settings: { spaceId: 'space-1' } });

  it.each<[string, Partial<TokenizeRequest>, Record<string, unknown>]>([
    ['a count', {}, { model_id: 'm', input: 'Hello', space_id: 'space-1' }],
    [
      'the tokens',
      { tokens: true },
      { model_id: 'm', input: 'Hello', space_id: 'space-1', parameters: { return_tokens: true } },
    ],
  ])('%s', (_n, over, body) => {
    const spec = watsonxTokenize.buildTokenizeRequest(ASK(over), wx);
    expect(spec.method).toBe('POST');
    expect(spec.url).toBe('https://wx.test/ml/v1/text/tokenization?version=2024-05-01');
    expect(spec.headers).toStrictEqual({ 'content-type': 'application/json', accept: 'application/json' });
    expect(JSON.parse(spec.body as string)).toStrictEqual(body);
    expect(watsonxTokenizationRequestSchema.safeParse(JSON.parse(spec.body as string)).success).toBe(true);
  });

  it("uses the project over the space, and the profile's API version", () => {
    const spec = watsonxTokenize.buildTokenizeRequest(ASK(), {
      ...wx,
      settings: { ...wx.settings, projectId: 'p-1' },
      apiVersion: '2025-01-01',
    });
    expect(spec.url).toMatch(/\?version=2025-01-01$/);
    expect(JSON.parse(spec.body as string)).toStrictEqual({ model_id: 'm', input: 'Hello', project_id: 'p-1' });
  });

  it('without a space or project it is a usage error', () => {
    expect(() => watsonxTokenize.buildTokenizeRequest(ASK(), testProfile({ provider: 'watsonx' }))).toThrow(UsageError);
    expect(() => watsonxTokenize.buildTokenizeRequest(ASK(), testProfile({ provider: 'watsonx' }))).toThrow(
      'profile "test" needs space_id or project_id for tokenization',
    );
  });

  it('reads the count, the tokens, and the model the service names', () => {
    const body = { model_id: 'google/flan-t5-xl', result: { token_count: 2, tokens: ['▁Hello', '!'] } };
    expect(watsonxTokenize.parseTokenizeResponse(body, ASK({ tokens: true }))).toStrictEqual({
      model: 'google/flan-t5-xl',
      token_count: 2,
      tokens: ['▁Hello', '!'],
    });
    expect(watsonxTokenize.parseTokenizeResponse(body, ASK())).toStrictEqual({
      model: 'google/flan-t5-xl',
      token_count: 2,
    });
  });

  it.each<[string, unknown, Partial<TokenizeRequest>]>([
    ['no result', { model_id: 'm' }, {}],
    ['a count that is no integer', { result: { token_count: '2' } }, {}],
    ['tokens asked for but missing', { result: { token_count: 2 } }, { tokens: true }],
  ])('%s is an unexpected answer', (_n, body, over) => {
    expect(() => watsonxTokenize.parseTokenizeResponse(body, ASK(over))).toThrow(UnexpectedAnswer);
  });

  it('has no ids and no detokenize endpoint', () => {
    expect(watsonxTokenize.givesIds).toBe(false);
    expect(watsonxTokenize.detokenize).toBeUndefined();
    expect(watsonxTokenize.tokenizerFileRequest).toBeUndefined();
  });
});

describe('Aleph Alpha tokenization on the wire', () => {
  const aa = testProfile({ provider: 'aleph-alpha', url: 'https://aa.test' });

  it.each<[string, Partial<TokenizeRequest>, Record<string, unknown>]>([
    // The answer carries no count of its own: a bare count asks for the ids and counts them.
    ['a count', {}, { model: 'm', prompt: 'Hello', tokens: false, token_ids: true }],
    ['the tokens', { tokens: true }, { model: 'm', prompt: 'Hello', tokens: true, token_ids: false }],
    ['the ids', { ids: true }, { model: 'm', prompt: 'Hello', tokens: false, token_ids: true }],
    ['both', { tokens: true, ids: true }, { model: 'm', prompt: 'Hello', tokens: true, token_ids: true }],
  ])('%s', (_n, over, body) => {
    const spec = alephAlphaTokenize.buildTokenizeRequest(ASK(over), aa);
    expect(spec).toMatchObject({
      method: 'POST',
      url: 'https://aa.test/tokenize',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
    });
    expect(JSON.parse(spec.body as string)).toStrictEqual(body);
    expect(alephAlphaTokenizationRequestSchema.safeParse(body).success).toBe(true);
  });

  it('counts the ids, and reports only what was asked for', () => {
    const body = { tokens: ['ĠAn', 'Ġapple'], token_ids: [560, 34438] };
    expect(alephAlphaTokenize.parseTokenizeResponse(body, ASK())).toStrictEqual({ model: 'm', token_count: 2 });
    expect(alephAlphaTokenize.parseTokenizeResponse({ tokens: body.tokens }, ASK({ tokens: true }))).toStrictEqual({
      model: 'm',
      token_count: 2,
      tokens: ['ĠAn', 'Ġapple'],
    });
    expect(alephAlphaTokenize.parseTokenizeResponse(body, ASK({ tokens: true, ids: true }))).toStrictEqual({
      model: 'm',
      token_count: 2,
      tokens: ['ĠAn', 'Ġapple'],
      ids: [560, 34438],
    });
  });

  it.each<[string, unknown, Partial<TokenizeRequest>]>([
    ['not an object', [1], {}],
    ['no ids for a count', { tokens: ['a'] }, {}],
    ['ids that are not integers', { token_ids: ['1'] }, { ids: true }],
    ['no tokens when asked', { token_ids: [1] }, { tokens: true }],
  ])('%s is an unexpected answer', (_n, body, over) => {
    expect(() => alephAlphaTokenize.parseTokenizeResponse(body, ASK(over))).toThrow(UnexpectedAnswer);
  });

  it('detokenizes on POST /detokenize', () => {
    const detokenize = alephAlphaTokenize.detokenize!;
    const spec = detokenize.buildRequest({ model: 'luminous-base', ids: [560, 34438] }, aa);
    expect(spec).toMatchObject({ method: 'POST', url: 'https://aa.test/detokenize' });
    const body = JSON.parse(spec.body as string);
    expect(body).toStrictEqual({ model: 'luminous-base', token_ids: [560, 34438] });
    expect(alephAlphaDetokenizationRequestSchema.safeParse(body).success).toBe(true);
    expect(detokenize.parseResponse({ result: ' An apple' }, { model: 'luminous-base', ids: [] })).toStrictEqual({
      model: 'luminous-base',
      text: ' An apple',
    });
    expect(() => detokenize.parseResponse({ text: 'x' }, { model: 'luminous-base', ids: [] })).toThrow(
      UnexpectedAnswer,
    );
  });

  it('fetches the tokenizer file with GET /models/{model}/tokenizer', () => {
    expect(alephAlphaTokenize.tokenizerFileRequest!('luminous base/x', aa)).toStrictEqual({
      method: 'GET',
      url: 'https://aa.test/models/luminous%20base%2Fx/tokenizer',
      headers: { accept: 'application/json' },
    });
  });
});
