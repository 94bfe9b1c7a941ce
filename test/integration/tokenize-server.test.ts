import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localTokenizer, localTokenizerJson } from '../../profiles/aleph-alpha/server/tokenizer.js';
import { alephAlphaTokenizeProtocol } from '../../profiles/aleph-alpha/server/tokenize.js';
import { watsonxTokenizeProtocol } from '../../profiles/watsonx/server/tokenize.js';
import { startServer, type RunningServer } from '../../src/emulator/core/index.js';
import { createByteLevelBpe } from '../../src/tokenizers/byte-level-bpe.js';
import { loadOpenAiTokenizer } from '../../src/tokenizers/openai-tokenizer.js';
import { alephAlphaErrorSchema } from '../contract/aleph-alpha-schemas.js';
import {
  alephAlphaDetokenizationResponseSchema,
  alephAlphaTokenizationResponseSchema,
  watsonxTokenizationResponseSchema,
} from '../contract/tokenize-schemas.js';
import { watsonxErrorSchema } from '../contract/watsonx-schemas.js';

const KEY = 'tokenize-server-key';
let open: RunningServer;
let locked: RunningServer;

beforeAll(async () => {
  const protocols = [watsonxTokenizeProtocol, alephAlphaTokenizeProtocol];
  open = await startServer({ protocols });
  locked = await startServer({ protocols, requireAuth: true, apiKeys: [KEY] });
});
afterAll(async () => {
  await Promise.all([open.close(), locked.close()]);
});

function post(
  server: RunningServer,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const WX = '/ml/v1/text/tokenization?version=2024-05-01';
const WX_BODY = { model_id: 'ibm/granite-13b-instruct-v2', input: 'Hello world', space_id: 's' };

describe('the local watsonx tokenization endpoint', () => {
  it("counts with the engine's tokenizer (cl100k_base)", async () => {
    const res = await post(open, WX, WX_BODY);
    expect(res.status).toBe(200);
    const body = watsonxTokenizationResponseSchema.parse(await res.json());
    expect(body).toStrictEqual({ model_id: 'ibm/granite-13b-instruct-v2', result: { token_count: 2 } });
  });

  it('lists the token texts with return_tokens, the same every time', async () => {
    const text = 'Grüße 🌍, world';
    const ask = () =>
      post(open, WX, { ...WX_BODY, input: text, parameters: { return_tokens: true } }).then((r) => r.json());
    const first = watsonxTokenizationResponseSchema.parse(await ask());
    const cl100k = await loadOpenAiTokenizer('cl100k_base');
    expect(first.result.token_count).toBe(cl100k.encode(text).length);
    expect(first.result.tokens).toStrictEqual(cl100k.tokenTexts(cl100k.encode(text)));
    expect(await ask()).toStrictEqual(first);
  });

  it.each<[string, string, unknown, number, RegExp]>([
    ['no version', '/ml/v1/text/tokenization', WX_BODY, 400, /Missing query parameter 'version'/],
    ['a bad version', '/ml/v1/text/tokenization?version=May', WX_BODY, 400, /expected YYYY-MM-DD/],
    ['no body', WX, '', 400, /'input' cannot be missing or empty/],
    ['a body that is not JSON', WX, '{', 400, /not valid JSON/],
    ['no model_id', WX, { input: 'x', space_id: 's' }, 400, /'model_id' is required/],
    ['an empty input', WX, { ...WX_BODY, input: '' }, 400, /'input' cannot be missing or empty/],
    ['both space and project', WX, { ...WX_BODY, project_id: 'p' }, 400, /exactly one of 'project_id' or 'space_id'/],
    ['neither space nor project', WX, { model_id: 'm', input: 'x' }, 400, /exactly one of 'project_id' or 'space_id'/],
    ['an unknown field', WX, { ...WX_BODY, inputs: ['x'] }, 400, /'inputs' is not a recognized field/],
    [
      'an unknown parameter',
      WX,
      { ...WX_BODY, parameters: { return_ids: true } },
      400,
      /'parameters.return_ids' is not a recognized field/,
    ],
    [
      'a return_tokens that is no boolean',
      WX,
      { ...WX_BODY, parameters: { return_tokens: 'yes' } },
      400,
      /'parameters.return_tokens' must be of type boolean/,
    ],
  ])('%s is a %i in watsonx words', async (_n, path, body, status, message) => {
    const res = await post(open, path, body);
    expect(res.status).toBe(status);
    const error = watsonxErrorSchema.parse(await res.json());
    expect(error.errors.map((e) => e.message).join('; ')).toMatch(message);
  });

  it('wants credentials when the server asks for them', async () => {
    const res = await post(locked, WX, WX_BODY);
    expect(res.status).toBe(401);
    expect(watsonxErrorSchema.parse(await res.json()).errors[0]?.code).toBe('authorization_rejected');
  });

  it('GET is 405 in watsonx words', async () => {
    const res = await fetch(`${open.url}${WX}`);
    expect(res.status).toBe(405);
    watsonxErrorSchema.parse(await res.json());
  });
});

const AA_BODY = {
  model: 'luminous-base',
  prompt: 'An apple a day keeps the doctor away.',
  tokens: true,
  token_ids: true,
};

describe('the local Aleph Alpha tokens endpoints', () => {
  it('/tokenize answers with the local tokenizer, only what was asked for', async () => {
    const both = alephAlphaTokenizationResponseSchema.parse(await (await post(open, '/tokenize', AA_BODY)).json());
    const t = localTokenizer();
    expect(both.token_ids).toStrictEqual(t.encode(AA_BODY.prompt));
    expect(both.tokens).toStrictEqual(t.tokenTexts(both.token_ids!));
    expect(both.tokens).toContain('Ġkeeps');
    expect(await (await post(open, '/tokenize', { ...AA_BODY, tokens: false })).json()).toStrictEqual({
      token_ids: both.token_ids,
    });
    expect(await (await post(open, '/tokenize', { ...AA_BODY, token_ids: false })).json()).toStrictEqual({
      tokens: both.tokens,
    });
    expect(await (await post(open, '/tokenize', { ...AA_BODY, tokens: false, token_ids: false })).json()).toStrictEqual(
      {},
    );
  });

  it('/detokenize turns the ids back into the prompt', async () => {
    const ids = localTokenizer().encode(AA_BODY.prompt);
    const res = await post(open, '/detokenize', { model: 'luminous-base', token_ids: ids });
    expect(res.status).toBe(200);
    expect(alephAlphaDetokenizationResponseSchema.parse(await res.json())).toStrictEqual({ result: AA_BODY.prompt });
  });

  it('the served tokenizer.json, tokenized with offline, gives the ids /tokenize gives', async () => {
    const res = await fetch(`${open.url}/models/luminous-extended/tokenizer`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    const doc = await res.json();
    expect(doc).toStrictEqual(localTokenizerJson());
    const offline = createByteLevelBpe(doc);
    for (const prompt of [AA_BODY.prompt, 'Grüße 🌍 <|endoftext|> 2048 tokens\n\tand more']) {
      const online = alephAlphaTokenizationResponseSchema.parse(
        await (await post(open, '/tokenize', { ...AA_BODY, prompt })).json(),
      );
      expect(offline.encode(prompt)).toStrictEqual(online.token_ids);
      expect(offline.tokenTexts(online.token_ids!)).toStrictEqual(online.tokens);
    }
  });

  it.each<[string, string, unknown, number, string, RegExp]>([
    [
      'a missing field',
      '/tokenize',
      { model: 'luminous-base', prompt: 'x', tokens: true },
      400,
      'BAD_REQUEST',
      /missing field 'token_ids'/,
    ],
    [
      'a field of the wrong type',
      '/tokenize',
      { ...AA_BODY, tokens: 'yes' },
      400,
      'BAD_REQUEST',
      /'tokens' must be a boolean/,
    ],
    [
      'an unknown field',
      '/tokenize',
      { ...AA_BODY, hosting: 'aleph-alpha' },
      400,
      'BAD_REQUEST',
      /unknown field 'hosting'/,
    ],
    ['a body that is not JSON', '/tokenize', '{', 400, 'BAD_REQUEST', /not valid JSON/],
    ['an unknown model', '/tokenize', { ...AA_BODY, model: 'gpt-4' }, 404, 'UNKNOWN_MODEL', /Unknown model 'gpt-4'/],
    [
      'ids that are not integers',
      '/detokenize',
      { model: 'luminous-base', token_ids: [1.5] },
      400,
      'BAD_REQUEST',
      /'token_ids' must be a list of integers/,
    ],
    [
      'an id outside the vocabulary',
      '/detokenize',
      { model: 'luminous-base', token_ids: [1, 99999] },
      400,
      'BAD_REQUEST',
      /token id 99999 is not in the tokenizer/,
    ],
    [
      'an unknown model',
      '/detokenize',
      { model: 'nope', token_ids: [1] },
      404,
      'UNKNOWN_MODEL',
      /Unknown model 'nope'/,
    ],
  ])('%s on %s is a %i %s', async (_n, path, body, status, code, message) => {
    const res = await post(open, path, body);
    expect(res.status).toBe(status);
    const error = alephAlphaErrorSchema.parse(await res.json());
    expect(error.code).toBe(code);
    expect(error.error).toMatch(message);
  });

  it('the tokenizer of an unknown model is a 404 UNKNOWN_MODEL', async () => {
    const res = await fetch(`${open.url}/models/gpt-4/tokenizer`);
    expect(res.status).toBe(404);
    expect(alephAlphaErrorSchema.parse(await res.json()).code).toBe('UNKNOWN_MODEL');
  });

  it.each(['/tokenize', '/detokenize'])('%s wants the bearer token when the server asks for one', async (path) => {
    const body = path === '/tokenize' ? AA_BODY : { model: 'luminous-base', token_ids: [1] };
    expect((await post(locked, path, body)).status).toBe(401);
    expect((await post(locked, path, body, { authorization: `Bearer ${KEY}` })).status).toBe(200);
  });

  it('the tokenizer file wants the bearer token too', async () => {
    expect((await fetch(`${locked.url}/models/luminous-base/tokenizer`)).status).toBe(401);
    expect(
      (await fetch(`${locked.url}/models/luminous-base/tokenizer`, { headers: { authorization: `Bearer ${KEY}` } }))
        .status,
    ).toBe(200);
  });

  it('an unknown path under /models/ is a 404 in Aleph Alpha words', async () => {
    const res = await fetch(`${open.url}/models/luminous-base/vocab`);
    expect(res.status).toBe(404);
    alephAlphaErrorSchema.parse(await res.json());
  });
});
