/**
 * IBM's watsonx.ai SDK (`@ibm-cloud/watsonx-ai`) `textRerank` against `textgen serve` (in-process, 127.0.0.1 port 0,
 * no credentials): the body the SDK sends is the one test/contract/watsonx-schemas.ts describes, and serve answers
 * the SDK's `RerankResponse` — best first, `top_n`, `return_options.inputs/query`, `truncate_input_tokens`, the
 * service's errors, and the fault switches on the route. Beside it, the other text calls the `text …` commands make
 * (embedText, tokenizeText, textChat), once each, in the shapes their SDK types give.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WatsonXAI } from '@ibm-cloud/watsonx-ai';
import { NoAuthAuthenticator } from '@ibm-cloud/watsonx-ai/authentication';
import { startServer, type RunningServer } from '../../src/emulator/core/index.js';
import { watsonxRerankRequestSchema, watsonxRerankResponseSchema } from '../contract/watsonx-schemas.js';

const MODEL = 'cross-encoder/ms-marco-minilm-l-12-v2';
const TEXTS = ['Rivers start in the mountains.', 'Bread is baked in ovens.', 'Where do rivers start? In springs.'];

let server: RunningServer;
let wx: WatsonXAI;
beforeAll(async () => {
  server = await startServer({ requestLog: { max: 1000 } });
  wx = WatsonXAI.newInstance({
    serviceUrl: server.url,
    version: '2024-05-01',
    spaceId: 'sdk-space',
    authenticator: new NoAuthAuthenticator(),
  });
});
afterAll(() => server.close());
afterEach(() => {
  server.requests.length = 0;
  server.faults.length = 0;
});

/** The SDK's error: the service's status and message. */
async function failure(call: Promise<unknown>): Promise<{ status: number; message: string }> {
  try {
    await call;
  } catch (e) {
    const err = e as { status?: number; message?: string; body?: string };
    return { status: err.status ?? 0, message: `${err.message ?? ''} ${err.body ?? ''}` };
  }
  throw new Error('the call succeeded');
}

describe('the watsonx.ai SDK textRerank against serve', () => {
  it('sends the contract body and gets a RerankResponse, best first', async () => {
    const res = await wx.textRerank({
      modelId: MODEL,
      inputs: TEXTS.map((text) => ({ text })),
      query: 'where do rivers start',
    });
    expect(res.status).toBe(200);
    const body = watsonxRerankResponseSchema.parse(res.result);
    expect(body.model_id).toBe(MODEL);
    expect(body.results.map((r) => r.index).sort()).toEqual([0, 1, 2]);
    const scores = body.results.map((r) => r.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    // The bread text shares no word with the query.
    expect(body.results.at(-1)!.index).toBe(1);
    expect(body.input_token_count).toBeGreaterThan(0);
    const [request] = server.requests.filter((r) => r.path === '/ml/v1/text/rerank');
    expect(watsonxRerankRequestSchema.safeParse(request!.json).success).toBe(true);
    expect(request!.json).toEqual({
      model_id: MODEL,
      inputs: TEXTS.map((text) => ({ text })),
      query: 'where do rivers start',
      space_id: 'sdk-space',
    });
  });

  it('return_options: top_n cuts, inputs and query come back when asked; truncate_input_tokens is taken', async () => {
    const res = await wx.textRerank({
      modelId: MODEL,
      inputs: TEXTS.map((text) => ({ text })),
      query: 'rivers',
      parameters: { truncate_input_tokens: 4, return_options: { top_n: 2, inputs: true, query: true } },
    });
    const body = watsonxRerankResponseSchema.parse(res.result);
    expect(body.results).toHaveLength(2);
    for (const r of body.results) expect(r.input).toEqual({ text: TEXTS[r.index] });
    expect(body.query).toBe('rivers');
    const same = await wx.textRerank({ modelId: MODEL, inputs: TEXTS.map((text) => ({ text })), query: 'rivers' });
    expect(same.result.results.map((r) => r.input)).toEqual([undefined, undefined, undefined]);
  });

  it("the service's errors: a model that cannot rerank, a missing query, too many inputs, too long a text", async () => {
    const generator = await failure(
      wx.textRerank({ modelId: 'ibm/granite-3-8b-instruct', inputs: [{ text: 'a' }], query: 'q' }),
    );
    expect(generator.status).toBe(400);
    expect(generator.message).toContain("does not support function 'function_rerank'");
    const unknown = await failure(wx.textRerank({ modelId: 'nope/none', inputs: [{ text: 'a' }], query: 'q' }));
    expect(unknown.status).toBe(404);
    // The SDK itself refuses a call without a query: sent by hand, the service's own 400.
    const noQuery = await fetch(`${server.url}/ml/v1/text/rerank?version=2024-05-01`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model_id: MODEL, inputs: [{ text: 'a' }], space_id: 's' }),
    });
    expect(noQuery.status).toBe(400);
    expect(JSON.stringify(await noQuery.json())).toContain("'query' is required");
    const many = await failure(
      wx.textRerank({ modelId: MODEL, inputs: Array.from({ length: 1001 }, () => ({ text: 'a' })), query: 'q' }),
    );
    expect(many.status).toBe(400);
    expect(many.message).toContain('at most 1000 items');
    const long = 'word '.repeat(600);
    const tooLong = await failure(wx.textRerank({ modelId: MODEL, inputs: [{ text: long }], query: 'q' }));
    expect(tooLong.status).toBe(400);
    expect(tooLong.message).toContain('exceeds the maximum sequence length');
    const cut = await wx.textRerank({
      modelId: MODEL,
      inputs: [{ text: long }],
      query: 'q',
      parameters: { truncate_input_tokens: 100 },
    });
    expect(cut.status).toBe(200);
  });

  it('the fault switches apply on the route', async () => {
    server.faults.push({ kind: 'status', status: 503 });
    const failed = await failure(wx.textRerank({ modelId: MODEL, inputs: [{ text: 'a' }], query: 'q' }));
    expect(failed.status).toBe(503);
  });
});

describe('the other text calls of the text commands, through the SDK', () => {
  it('embedText, tokenizeText and textChat answer in their SDK shapes', async () => {
    const embedded = await wx.embedText({ modelId: 'ibm/slate-30m-english-rtrvr', inputs: ['a river'] });
    expect(embedded.result.results[0]!.embedding).toHaveLength(384);
    const tokens = await wx.tokenizeText({
      modelId: 'ibm/granite-3-8b-instruct',
      input: 'a river',
      parameters: { return_tokens: true },
    });
    expect(tokens.result.result.tokens?.join('')).toBe('a river');
    const chat = await wx.textChat({
      modelId: 'ibm/granite-3-8b-instruct',
      messages: [{ role: 'user', content: 'What is a river?' }],
      maxTokens: 8,
    });
    expect(typeof chat.result.choices[0]!.message!.content).toBe('string');
  });
});
