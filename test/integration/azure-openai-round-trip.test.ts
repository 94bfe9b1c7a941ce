import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { CanonicalRequest, GenerateResult } from '../../src/contract/canonical.js';
import type { ResolvedAuth } from '../../src/contract/profile.js';
import { formatApiMessage } from '../../src/contract/errors.js';
import { StreamAggregator } from '../../src/generation/aggregate.js';
import { parseSse } from '../../src/http/sse-parser.js';
import { startServer, type RunningServer } from '../../src/emulator/core/index.js';
import { azureOpenAiGenerate, openAiGenerate } from '../../profiles/openai/client/generate.js';
import { azureOpenAiProtocol } from '../../profiles/openai/server/index.js';
import { createStaticAuthenticator } from '../../profiles/common/static-auth.js';
import type { GenerateTarget, GenerateOperation } from '../../src/contract/adapter.js';
import { testProfile } from '../helpers/profile.js';
import { completionsRequestSchema, completionsResponseSchema, schemaErrors } from '../contract/azure-openapi.js';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({
    requestLog: { max: 1000 },
    protocols: [azureOpenAiProtocol],
    requireAuth: true,
    apiKeys: ['local-key'],
  });
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  // Whatever the client mapping sent is a body the OpenAPI document allows.
  for (const r of server.requests)
    expect(schemaErrors(completionsRequestSchema(), r.json), `${r.method} ${r.path}`).toBe('');
  server.requests.length = 0;
});

type Outcome = { ok: true; result: GenerateResult; raw: unknown[] } | { ok: false; message: string };

/** What the CLI does, minus the terminal: map, authenticate, send, and parse or decode the answer. */
async function roundTrip(
  profile: GenerateOperation,
  request: CanonicalRequest,
  target: GenerateTarget,
  extra?: Record<string, unknown>,
): Promise<Outcome> {
  const auth: ResolvedAuth =
    profile.kind === 'azure-openai' ? { type: 'api-key', key: 'local-key' } : { type: 'bearer', token: 'local-key' };
  const resolved = testProfile({ provider: profile.kind as 'azure-openai' | 'openai', url: server.url, auth });
  const spec = profile.build(request, target, resolved, extra);
  const headers = { ...spec.headers, ...(await createStaticAuthenticator(resolved, 'AZURE_OPENAI_API_KEY').headers()) };
  const res = await fetch(spec.url, { method: spec.method, headers, body: spec.body ?? null });
  if (res.status !== 200) {
    const details = profile.parseError(res.status, await res.text(), Object.fromEntries(res.headers));
    return { ok: false, message: formatApiMessage(details) };
  }
  if (!target.stream) {
    const body: unknown = await res.json();
    expect(schemaErrors(completionsResponseSchema(), body)).toBe('');
    return { ok: true, result: profile.parse(body, request), raw: [body] };
  }
  expect(res.headers.get('content-type')).toBe('text/event-stream');
  const decode = profile.decoder(request);
  const aggregator = new StreamAggregator();
  const raw: unknown[] = [];
  for await (const event of parseSse(res.body!)) {
    const step = decode(event);
    if (step.type === 'end') break;
    if (step.type === 'error') return { ok: false, message: step.message };
    if (step.type === 'chunk') {
      aggregator.add(step.chunk);
      raw.push(step.wireBody);
    }
  }
  return { ok: true, result: aggregator.result(), raw };
}

function result(outcome: Outcome): GenerateResult {
  if (!outcome.ok) throw new Error(`expected an answer, got: ${outcome.message}`);
  return outcome.result;
}

const tokenRequest: CanonicalRequest = {
  input: 'Write about the quiet harbor',
  parameters: {
    decoding_method: 'greedy',
    max_new_tokens: 25,
    return_options: { input_text: true, generated_tokens: true, token_logprobs: true, top_n_tokens: 3 },
  },
};

describe.each([
  { profile: azureOpenAiGenerate, target: { deployment: 'demo' } },
  { profile: openAiGenerate, target: { model: 'local-model' } },
])('$profile.kind: client mapping → local server → canonical result', ({ profile, target }) => {
  test('a plain answer with echo and token data', async () => {
    const r = result(await roundTrip(profile, tokenRequest, { ...target, stream: false }));
    expect(r.model_id).toBe(profile.kind === 'azure-openai' ? 'demo' : 'local-model');
    expect(r.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(r.results).toHaveLength(1);
    const item = r.results[0]!;
    expect(item.input_text).toBe('Write about the quiet harbor');
    expect(item.generated_text.length).toBeGreaterThan(0);
    expect(['eos_token', 'max_tokens']).toContain(item.stop_reason);
    expect(item.input_token_count).toBe(5);
    expect(item.generated_token_count).toBe(item.generated_tokens!.length);
    expect(item.generated_tokens!.map((t) => t.text).join('')).toBe(item.generated_text);
    for (const t of item.generated_tokens!) {
      expect(t.logprob).toBeLessThanOrEqual(0);
      expect(t.top_tokens!.length).toBeGreaterThan(0);
      expect(t.top_tokens!.length).toBeLessThanOrEqual(3);
    }
  });

  test('the stream adds up to the plain answer', async () => {
    const plain = result(await roundTrip(profile, tokenRequest, { ...target, stream: false }));
    const streamed = result(
      await roundTrip(profile, tokenRequest, { ...target, stream: true }, { stream_options: { include_usage: true } }),
    );
    expect(streamed.results).toEqual(plain.results);
    expect(streamed.model_id).toBe(plain.model_id);
  });

  test('without token data a stream still gives text and stop reason', async () => {
    const request: CanonicalRequest = { input: 'Hello', parameters: { decoding_method: 'greedy', max_new_tokens: 10 } };
    const plain = result(await roundTrip(profile, request, { ...target, stream: false }));
    const streamed = result(await roundTrip(profile, request, { ...target, stream: true }));
    expect(streamed.results[0]).toMatchObject({
      generated_text: plain.results[0]!.generated_text,
      stop_reason: plain.results[0]!.stop_reason,
    });
  });

  test('stop sequences end the text before them, reported as stop_sequence', async () => {
    const free = result(
      await roundTrip(
        profile,
        { input: 'A story about a garden', parameters: { decoding_method: 'greedy', max_new_tokens: 30 } },
        { ...target, stream: false },
      ),
    );
    const text = free.results[0]!.generated_text;
    const stop = ` ${text.trim().split(/\s+/)[2]}`;
    const request: CanonicalRequest = {
      input: 'A story about a garden',
      parameters: { decoding_method: 'greedy', max_new_tokens: 30, stop_sequences: [stop] },
    };
    for (const stream of [false, true]) {
      const r = result(await roundTrip(profile, request, { ...target, stream }));
      expect(r.results[0]).toMatchObject({
        generated_text: text.slice(0, text.indexOf(stop)),
        stop_reason: 'stop_sequence',
      });
    }
  });

  test('n choices come back as n results', async () => {
    const request: CanonicalRequest = { input: 'Hello', n: 3, parameters: { max_new_tokens: 6, temperature: 0.8 } };
    for (const stream of [false, true]) {
      const r = result(await roundTrip(profile, request, { ...target, stream }));
      expect(r.results).toHaveLength(3);
      for (const item of r.results) expect(item.generated_text.length).toBeGreaterThan(0);
    }
  });

  test('filtered output keeps content_filter as the stop reason, with a warning', async () => {
    const request: CanonicalRequest = {
      input: 'forbidden fruit',
      parameters: { decoding_method: 'greedy', max_new_tokens: 60 },
    };
    for (const stream of [false, true]) {
      const r = result(await roundTrip(profile, request, { ...target, stream }));
      expect(r.results[0]).toMatchObject({ generated_text: ' Clearly, this', stop_reason: 'content_filter' });
      expect(r.system?.warnings).toEqual([expect.objectContaining({ id: 'content_filter' })]);
    }
  });

  test('a filtered prompt is an error naming provider, status, code, message and request id', async () => {
    const outcome = await roundTrip(profile, { input: 'say forbidden-words' }, { ...target, stream: false });
    expect(outcome.ok).toBe(false);
    expect((outcome as { message: string }).message).toMatch(
      new RegExp(
        `^${profile.kind} returned HTTP 400 content_filter: The response was filtered due to the prompt triggering Azure OpenAI's content management policy\\. .* \\(inner error ResponsibleAIPolicyViolation; filtered: violence \\(medium\\)\\) \\((apim|x)-request-id [0-9a-f-]{36}\\)$`,
      ),
    );
  });

  test('best_of through --extra, plain', async () => {
    const r = result(
      await roundTrip(
        profile,
        { input: 'Hello', parameters: { max_new_tokens: 5 } },
        { ...target, stream: false },
        { best_of: 3 },
      ),
    );
    expect(r.results).toHaveLength(1);
  });

  test('an in-stream error becomes an error step after the partial text', async () => {
    server.faults.push({ kind: 'stream-error', afterEvents: 3 });
    const outcome = await roundTrip(
      profile,
      { input: 'Hello', parameters: { max_new_tokens: 20 } },
      { ...target, stream: true },
    );
    expect(outcome).toEqual({
      ok: false,
      message: 'The server had an error while processing your request. Sorry about that!',
    });
  });
});

test("a wrong key is a 401 the client reads in Azure's words", async () => {
  const resolved = testProfile({ provider: 'azure-openai', url: server.url });
  const spec = azureOpenAiGenerate.build({ input: 'Hi' }, { deployment: 'demo', stream: false }, resolved);
  const res = await fetch(spec.url, {
    method: 'POST',
    headers: { ...spec.headers, 'api-key': 'wrong' },
    body: spec.body ?? null,
  });
  const details = azureOpenAiGenerate.parseError(res.status, await res.text(), Object.fromEntries(res.headers));
  expect(details).toMatchObject({
    provider: 'azure-openai',
    status: 401,
    code: '401',
    message: expect.stringMatching(/^Access denied/),
  });
  expect(details.traceId).toBe(res.headers.get('apim-request-id'));
});
