/**
 * IBM's own watsonx.ai SDK (`@ibm-cloud/watsonx-ai`) as the oracle for `textgen serve`: every SDK call that maps to a
 * route serve emulates, against serve started in-process on 127.0.0.1 port 0, without credentials and with
 * `requireAuth` through each of the SDK's authenticators (IAM at serve's /identity/token, Cloud Pak for Data with a
 * password and with an API key at serve's /icp4d-api, a bearer token). Answers must have the shapes the SDK's
 * TypeScript types declare (watsonx-sdk-shapes.ts) and the right values. Nothing leaves the machine: the service URL
 * and every token URL point at serve. docs/watsonx.md lists the calls.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WatsonXAI } from '@ibm-cloud/watsonx-ai';
import type { ObjectStreamed, TextGenParameters, TextGenResponse } from '@ibm-cloud/watsonx-ai';
import {
  BearerTokenAuthenticator,
  CloudPakForDataAuthenticator,
  IamAuthenticator,
  NoAuthAuthenticator,
} from '@ibm-cloud/watsonx-ai/authentication';
import { startServer, type RunningServer } from '../../src/emulator/core/index.js';
import { FOUNDATION_MODEL_SPECS } from '../../profiles/watsonx/server/model-catalog.js';
import * as shape from './watsonx-sdk-shapes.js';

const KEY = 'sdk-suite-apikey-0001';
const SPACE = 'sdk-space';
const MODEL = 'ibm/granite-4-h-small';

type Auth = 'none' | 'iam' | 'cpd-password' | 'cpd-apikey' | 'bearer';

async function bearerToken(server: RunningServer): Promise<string> {
  const res = await fetch(`${server.url}/identity/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'urn:ibm:params:oauth:grant-type:apikey', apikey: KEY }),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

async function authenticator(auth: Auth, server: RunningServer) {
  switch (auth) {
    case 'none':
      return new NoAuthAuthenticator();
    case 'iam':
      return new IamAuthenticator({ apikey: KEY, url: server.url });
    case 'cpd-password':
      return new CloudPakForDataAuthenticator({
        username: 'admin',
        password: 'sdk-password',
        url: `${server.url}/icp4d-api`,
      });
    case 'cpd-apikey':
      return new CloudPakForDataAuthenticator({ username: 'admin', apikey: KEY, url: `${server.url}/icp4d-api` });
    case 'bearer':
      return new BearerTokenAuthenticator({ bearerToken: await bearerToken(server) });
  }
}

/** What a stream's events add up to. */
function joined(events: ObjectStreamed<TextGenResponse>[]): { text: string; stop: string | undefined } {
  return {
    text: events.map((e) => e.data.results[0]!.generated_text).join(''),
    stop: events.at(-1)?.data.results[0]!.stop_reason,
  };
}

const GREEDY = { decoding_method: 'greedy', max_new_tokens: 12, min_new_tokens: 1 } as const;

describe.each<[Auth, boolean]>([
  ['none', false],
  ['iam', true],
  ['cpd-password', true],
  ['cpd-apikey', true],
  ['bearer', true],
])('the watsonx.ai SDK against textgen serve, authenticated with %s (requireAuth %s)', (auth, requireAuth) => {
  let server: RunningServer;
  let wx: WatsonXAI;
  /** Resolved when serve logs a line that matches, so tests wait for the event, not for time. */
  const waiters: Array<{ test: RegExp; resolve: () => void }> = [];

  beforeAll(async () => {
    server = await startServer({
      requestLog: { max: 1000 },
      requireAuth,
      apiKeys: [KEY],
      users: { admin: 'sdk-password' },
      log: (line) => {
        for (const w of waiters.splice(0)) {
          if (w.test.test(line)) w.resolve();
          else waiters.push(w);
        }
      },
    });
    wx = WatsonXAI.newInstance({
      serviceUrl: server.url,
      spaceId: SPACE,
      authenticator: await authenticator(auth, server),
    });
  });
  afterAll(async () => {
    await server.close();
  });

  const logged = (test: RegExp) => new Promise<void>((resolve) => waiters.push({ test, resolve }));

  it('generateText: a TextGenResponse whose counts agree with tokenizeText and max_new_tokens', async () => {
    const input = 'Write one line about rivers.';
    const res = await wx.generateText({
      input,
      modelId: MODEL,
      parameters: {
        ...GREEDY,
        return_options: { input_text: true, generated_tokens: true, token_logprobs: true, top_n_tokens: 2 },
      },
    });
    expect(res.status).toBe(200);
    const body = shape.shaped(shape.textGenResponse, res.result, 'generateText');
    const [result] = body.results;
    expect(body.model_id).toBe(MODEL);
    const tokens = await wx.tokenizeText({ modelId: MODEL, input });
    expect(result!.input_token_count).toBe(tokens.result.result.token_count);
    expect(result!.generated_token_count).toBeGreaterThanOrEqual(1);
    expect(result!.generated_token_count).toBeLessThanOrEqual(12);
    expect(result!.generated_tokens).toHaveLength(result!.generated_token_count!);
    for (const t of result!.generated_tokens!) expect(t.top_tokens!.length).toBeLessThanOrEqual(2);
    expect(result!.generated_tokens!.map((t) => t.text).join('')).toBe(result!.generated_text);
  });

  it('generateText with parameters.chat (history and context): taken, and the chat is part of the prompt', async () => {
    const chat = {
      history: [
        { is_question: true, content: 'What is a river?' },
        { is_question: false, content: 'Water that flows to the sea.' },
      ],
      context: 'Geography lessons.',
    };
    // The SDK's TextGenParameters type does not list `chat`; its own integration test sends it all the same.
    const withChat: TextGenParameters = Object.assign({ ...GREEDY }, { chat });
    const a = await wx.generateText({ input: 'And a lake?', modelId: MODEL, parameters: withChat });
    const b = await wx.generateText({ input: 'And a lake?', modelId: MODEL, parameters: GREEDY });
    const chatted = shape.shaped(shape.textGenResponse, a.result, 'generateText with chat').results[0]!;
    const plain = shape.shaped(shape.textGenResponse, b.result, 'generateText').results[0]!;
    const extra = await wx.tokenizeText({
      modelId: MODEL,
      input: [chat.context, ...chat.history.map((h) => h.content), ''].join('\n'),
    });
    expect(chatted.input_token_count! - plain.input_token_count!).toBe(extra.result.result.token_count);
  });

  it('generateTextStream (objects): events the SDK parses into TextGenResponses; the same text as generateText; the input count on every event', async () => {
    const input = 'Tell me about the sea.';
    const whole = shape.shaped(
      shape.textGenResponse,
      (await wx.generateText({ input, modelId: MODEL, parameters: GREEDY })).result,
      'generateText',
    ).results[0]!;
    const stream = await wx.generateTextStream({ input, modelId: MODEL, parameters: GREEDY, returnObject: true });
    const events: ObjectStreamed<TextGenResponse>[] = [];
    for await (const chunk of stream) events.push(shape.shaped(shape.streamedTextGen, chunk, 'a stream event'));
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
    expect(events.every((e) => e.event === 'message')).toBe(true);
    expect(joined(events)).toEqual({ text: whole.generated_text, stop: whole.stop_reason });
    for (const e of events) expect(e.data.results[0]!.input_token_count).toBe(whole.input_token_count);
    expect(events.at(-1)!.data.results[0]!.generated_token_count).toBe(whole.generated_token_count);
  });

  it('generateTextStream (strings): SSE lines the SDK hands over as they came, the same text again', async () => {
    const input = 'Tell me about the sea.';
    const stream = await wx.generateTextStream({ input, modelId: MODEL, parameters: GREEDY });
    const lines: string[] = [];
    for await (const line of stream) lines.push(line);
    expect(lines.every((l) => typeof l === 'string')).toBe(true);
    expect(lines.filter((l) => l.startsWith('event: ')).every((l) => l === 'event: message')).toBe(true);
    const data = lines
      .filter((l) => l.startsWith('data: '))
      .map((l) => shape.shaped(shape.textGenResponse, JSON.parse(l.slice(6)), 'a data line'));
    const whole = shape.shaped(
      shape.textGenResponse,
      (await wx.generateText({ input, modelId: MODEL, parameters: GREEDY })).result,
      'generateText',
    ).results[0]!;
    expect(data.map((d) => d.results[0]!.generated_text).join('')).toBe(whole.generated_text);
  });

  it.each(['demo', 'demo_serving'])(
    'deploymentGenerateText and its stream by %s: the same answer',
    async (idOrName) => {
      const parameters = { decoding_method: 'greedy', max_new_tokens: 8 } as const;
      const res = await wx.deploymentGenerateText({ idOrName, input: 'Name a river.', parameters });
      const whole = shape.shaped(shape.textGenResponse, res.result, 'deploymentGenerateText');
      expect(whole.model_id).toBe('textgen/local-demo');
      const stream = await wx.deploymentGenerateTextStream({
        idOrName,
        input: 'Name a river.',
        parameters,
        returnObject: true,
      });
      const events: ObjectStreamed<TextGenResponse>[] = [];
      for await (const chunk of stream)
        events.push(shape.shaped(shape.streamedTextGen, chunk, 'a deployment stream event'));
      expect(joined(events)).toEqual({ text: whole.results[0]!.generated_text, stop: whole.results[0]!.stop_reason });
    },
  );

  it('deploymentGenerateText with prompt_variables fills a prompt-template deployment', async () => {
    const res = await wx.deploymentGenerateText({
      idOrName: 'summarize',
      input: 'Summarise: {document}',
      parameters: { max_new_tokens: 4, prompt_variables: { document: 'Rivers run to the sea.' } },
    });
    const body = shape.shaped(shape.textGenResponse, res.result, 'deploymentGenerateText');
    expect(body.model_id).toBe('ibm/granite-3-3-8b-instruct');
    const filled = await wx.tokenizeText({ modelId: MODEL, input: 'Summarise: Rivers run to the sea.' });
    expect(body.results[0]!.input_token_count).toBe(filled.result.result.token_count);
  });

  it('tokenizeText: a count and the tokens, which spell the input', async () => {
    const input = 'Write a tagline for an alumni association: Together we';
    const res = await wx.tokenizeText({ modelId: MODEL, input, parameters: { return_tokens: true } });
    const body = shape.shaped(shape.tokenizeResponse, res.result, 'tokenizeText');
    expect(body.model_id).toBe(MODEL);
    expect(body.result.tokens!.join('')).toBe(input);
    expect(body.result.token_count).toBe(body.result.tokens!.length);
  });

  it.each([
    ['ibm/slate-125m-english-rtrvr-v2', 768],
    ['ibm/slate-30m-english-rtrvr-v2', 384],
    ['intfloat/multilingual-e5-large', 1024],
    ['ibm/granite-embedding-278m-multilingual', 768],
    ['sentence-transformers/all-minilm-l6-v2', 384],
  ])(
    'embedText with %s: vectors of %i unit-length numbers; the same text, the same vector',
    async (modelId, dimensions) => {
      const inputs = [
        'Youth craves thrills while adulthood cherishes wisdom.',
        'Rivers run to the sea.',
        'Youth craves thrills while adulthood cherishes wisdom.',
      ];
      const res = await wx.embedText({
        modelId,
        inputs,
        parameters: { truncate_input_tokens: 128, return_options: { input_text: true } },
      });
      const body = shape.shaped(shape.embeddingsResponse, res.result, 'embedText');
      expect(body.model_id).toBe(modelId);
      expect(body.results.map((r) => r.input)).toEqual(inputs);
      for (const r of body.results) {
        expect(r.embedding).toHaveLength(dimensions);
        expect(Math.hypot(...r.embedding)).toBeCloseTo(1, 6);
      }
      expect(body.results[2]!.embedding).toEqual(body.results[0]!.embedding);
      expect(body.results[1]!.embedding).not.toEqual(body.results[0]!.embedding);
      const counts = await Promise.all(inputs.map((input) => wx.tokenizeText({ modelId, input })));
      expect(body.input_token_count).toBe(counts.reduce((sum, c) => sum + c.result.result.token_count, 0));
    },
  );

  it("listFoundationModelSpecs with filters: only the models the filter selects, in the SDK's FoundationModel shape", async () => {
    const res = await wx.listFoundationModelSpecs({ filters: 'function_embedding', limit: 50 });
    const body = shape.shaped(shape.foundationModels, res.result, 'listFoundationModelSpecs');
    const ids = body.resources!.map((m) => m.model_id);
    expect(ids).toContain('ibm/slate-125m-english-rtrvr-v2');
    expect(ids).not.toContain(MODEL);
    for (const m of body.resources!) expect(m.functions.map((f) => f.id)).toContain('embedding');
    const one = await wx.listFoundationModelSpecs({ filters: `modelid_${MODEL}`, techPreview: false });
    expect(
      shape.shaped(shape.foundationModels, one.result, 'listFoundationModelSpecs').resources!.map((m) => m.model_id),
    ).toEqual([MODEL]);
  });

  it('FoundationModelSpecsPager: every page, every model, each once', async () => {
    const all = await new WatsonXAI.FoundationModelSpecsPager(wx, { limit: 7 }).getAll();
    expect(all.map((m) => shape.shaped(shape.foundationModel, m, 'a paged model').model_id)).toEqual(
      FOUNDATION_MODEL_SPECS.map((s) => s.model_id),
    );
  });

  it('listFoundationModelTasks and FoundationModelTasksPager: the tasks in rank order', async () => {
    const first = shape.shaped(
      shape.foundationModelTasks,
      (await wx.listFoundationModelTasks({ limit: 3 })).result,
      'listFoundationModelTasks',
    );
    expect(first.resources).toHaveLength(3);
    expect(first.next).toBeDefined();
    const all = await new WatsonXAI.FoundationModelTasksPager(wx, { limit: 3 }).getAll();
    expect(all.map((t) => shape.shaped(shape.foundationModelTask, t, 'a paged task').rank)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8,
    ]);
    expect(all.map((t) => t.task_id)).toContain('retrieval_augmented_generation');
  });

  it("listDeployments and getDeployment: DeploymentResources of the SDK's space", async () => {
    const list = shape.shaped(shape.deploymentResources, (await wx.listDeployments({})).result, 'listDeployments');
    expect(list.resources!.map((d) => d.metadata.id)).toEqual(['demo', 'classification', 'summarize', 'assistant']);
    for (const d of list.resources!) expect(d.metadata.space_id).toBe(SPACE);
    const byServingName = shape.shaped(
      shape.deploymentResources,
      (await wx.listDeployments({ servingName: 'summarize_serving' })).result,
      'listDeployments',
    );
    expect(byServingName.resources!.map((d) => d.metadata.id)).toEqual(['summarize']);
    const one = shape.shaped(
      shape.deploymentResource,
      (await wx.getDeployment({ deploymentId: 'classification' })).result,
      'getDeployment',
    );
    expect(one).toEqual(list.resources![1]);
    expect(one.entity.status!.inference!.filter((i) => i.sse).map((i) => new URL(i.url).pathname)).toEqual([
      '/ml/v1/deployments/classification/text/generation_stream',
      '/ml/v1/deployments/classification_serving/text/generation_stream',
    ]);
  });

  it("an unknown model, an unknown deployment: the SDK raises the service's 404 with its message", async () => {
    await expect(wx.generateText({ input: 'Hi', modelId: 'ibm/granite-0b-nothing' })).rejects.toMatchObject({
      status: 404,
      message: "Model 'ibm/granite-0b-nothing' is not supported",
    });
    await expect(wx.deploymentGenerateText({ idOrName: 'gone', input: 'Hi' })).rejects.toMatchObject({
      status: 404,
      message: "Deployment with id 'gone' does not exist. Re-try with a valid deployment id.",
    });
    await expect(wx.getDeployment({ deploymentId: 'gone' })).rejects.toMatchObject({ status: 404 });
    await expect(wx.embedText({ modelId: MODEL, inputs: ['x'] })).rejects.toMatchObject({
      status: 400,
      message: `Model '${MODEL}' does not support function 'function_embedding'`,
    });
  });

  it('an abort during a slowed model-spec listing rejects the call, and serve sees the client go', async () => {
    server.faults.push({ kind: 'delay', ms: 60_000, path: '/ml/v1/foundation_model_specs' });
    const slowed = logged(
      /^fault latency:ms=60000,path=\/ml\/v1\/foundation_model_specs on GET \/ml\/v1\/foundation_model_specs$/,
    );
    const gone = logged(/^GET \/ml\/v1\/foundation_model_specs → connection closed before the answer was complete/);
    const controller = new AbortController();
    const call = wx.listFoundationModelSpecs({ signal: controller.signal });
    await slowed;
    controller.abort();
    await expect(call).rejects.toThrow('canceled');
    await gone;
    expect(server.faults).toHaveLength(0);
  });

  it('the credentials went the way the authenticator sends them, and only to serve', () => {
    const exchanges = server.requests.filter((r) => !r.path.startsWith('/ml/'));
    const calls = server.requests.filter((r) => r.path.startsWith('/ml/'));
    expect(calls.length).toBeGreaterThan(20);
    for (const r of calls) expect(r.headers.host).toBe(new URL(server.url).host);
    if (auth === 'none') {
      expect(exchanges).toEqual([]);
      for (const r of calls) expect(r.headers.authorization).toBeUndefined();
      return;
    }
    for (const r of calls) expect(r.headers.authorization).toMatch(/^Bearer \S+$/);
    const expected = {
      iam: {
        path: '/identity/token',
        body: `apikey=${KEY}&grant_type=urn%3Aibm%3Aparams%3Aoauth%3Agrant-type%3Aapikey&response_type=cloud_iam`,
      },
      'cpd-password': {
        path: '/icp4d-api/v1/authorize',
        body: JSON.stringify({ username: 'admin', password: 'sdk-password' }),
      },
      'cpd-apikey': { path: '/icp4d-api/v1/authorize', body: JSON.stringify({ username: 'admin', api_key: KEY }) },
      // The test fetched the token itself before the SDK started.
      bearer: {
        path: '/identity/token',
        body: new URLSearchParams({ grant_type: 'urn:ibm:params:oauth:grant-type:apikey', apikey: KEY }).toString(),
      },
    }[auth];
    expect(exchanges.map((r) => ({ path: r.path, body: r.body }))).toEqual([expected]);
  });
});

describe('the SDK against serve with requireAuth and no credentials', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ requestLog: { max: 1000 }, requireAuth: true, apiKeys: [KEY] });
  });
  afterAll(async () => {
    await server.close();
  });

  it("every call is refused with 401 authorization_rejected; a wrong IAM key with IAM's own 400", async () => {
    const anonymous = WatsonXAI.newInstance({
      serviceUrl: server.url,
      spaceId: SPACE,
      authenticator: new NoAuthAuthenticator(),
    });
    await expect(anonymous.generateText({ input: 'Hi', modelId: MODEL })).rejects.toMatchObject({ status: 401 });
    await expect(anonymous.listFoundationModelSpecs({})).rejects.toMatchObject({ status: 401 });
    const wrongKey = WatsonXAI.newInstance({
      serviceUrl: server.url,
      spaceId: SPACE,
      authenticator: new IamAuthenticator({ apikey: 'not-the-key', url: server.url }),
    });
    await expect(wrongKey.tokenizeText({ modelId: MODEL, input: 'Hi' })).rejects.toMatchObject({
      status: 400,
      message: 'Provided API key could not be found.',
    });
  });
});
