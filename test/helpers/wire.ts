import { expect } from 'vitest';
import type { RecordedRequest } from '../../src/emulator/core/index.js';
import {
  watsonxFoundationGenerateRequestSchema,
  watsonxGenerateRequestSchema,
  watsonxRerankRequestSchema,
  watsonxForecastRequestSchema,
} from '../contract/watsonx-schemas.js';

const DEPLOYMENT_GENERATE = /^\/ml\/v1\/deployments\/[^/]+\/text\/generation(_stream)?$/;
const FOUNDATION_GENERATE = /^\/ml\/v1\/text\/generation(_stream)?$/;

/**
 * Every request a test made must be a valid watsonx request (docs/protocols/watsonx.md): the right path and
 * query, headers, and a body that passes the strict request schema.
 */
export function expectValidWatsonxWire(requests: RecordedRequest[]): void {
  for (const r of requests) {
    const where = `${r.method} ${r.path}`;
    if (DEPLOYMENT_GENERATE.test(r.path) || FOUNDATION_GENERATE.test(r.path)) {
      expect(r.method, where).toBe('POST');
      expect(r.query.version, `${where}: version= query`).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(r.headers['content-type'], where).toMatch(/^application\/json/);
      const streaming = r.path.endsWith('_stream');
      expect(r.headers.accept, where).toBe(streaming ? 'text/event-stream' : 'application/json');
      const schema = DEPLOYMENT_GENERATE.test(r.path)
        ? watsonxGenerateRequestSchema
        : watsonxFoundationGenerateRequestSchema;
      const parsed = schema.safeParse(r.json);
      expect(parsed.success, `${where}: ${parsed.success ? '' : JSON.stringify(parsed.error.issues)}`).toBe(true);
    } else if (r.path === '/ml/v1/text/rerank') {
      expect(r.method, where).toBe('POST');
      expect(r.query.version, `${where}: version= query`).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      const parsed = watsonxRerankRequestSchema.safeParse(r.json);
      expect(parsed.success, `${where}: ${parsed.success ? '' : JSON.stringify(parsed.error.issues)}`).toBe(true);
    } else if (r.path === '/ml/v1/time_series/forecast') {
      expect(r.method, where).toBe('POST');
      expect(r.query.version, `${where}: version= query`).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      const parsed = watsonxForecastRequestSchema.safeParse(r.json);
      expect(parsed.success, `${where}: ${parsed.success ? '' : JSON.stringify(parsed.error.issues)}`).toBe(true);
    } else if (r.path === '/identity/token') {
      expect(r.method).toBe('POST');
      expect(r.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
      const form = new URLSearchParams(r.body);
      expect(form.get('grant_type')).toBe('urn:ibm:params:oauth:grant-type:apikey');
      expect(form.get('apikey')).toBeTruthy();
    } else if (r.path === '/icp4d-api/v1/authorize') {
      expect(r.method).toBe('POST');
      expect(r.headers['content-type']).toMatch(/^application\/json/);
      const body = r.json as Record<string, unknown>;
      expect(typeof body.username).toBe('string');
      expect('api_key' in body !== 'password' in body, 'exactly one of api_key/password').toBe(true);
    } else if (!OTHER_OPERATIONS.some((re) => re.test(r.path))) {
      throw new Error(`unexpected request ${where}`);
    }
  }
}

/** Paths of the operations that are not generation (their own tests check their bodies). */
const OTHER_OPERATIONS = [
  /^\/ml\/v1\/foundation_model_(specs|tasks)$/,
  /^\/ml\/v4\/deployments(\/[^/]+)?$/,
  /^\/v2\/(spaces|projects)$/,
  /^\/ml\/v1\/text\/(embeddings|tokenization)$/,
  /^\/openai\/deployments(\/[^/]+\/embeddings)?$/,
  /^\/v1\/(models|embeddings)$/,
  /^\/(embed|semantic_embed|batch_semantic_embed|tokenize|detokenize|evaluate|explain|qa|summarize|version|models_available)$/,
  /^\/models\/[^/]+\/tokenizer$/,
  /^\/v2(\/health\/(live|ready)|\/models(\/[^/]+(\/versions\/[^/]+)?(\/ready)?)?|\/repository\/index)?$/,
];

/** The generation requests only. */
export function generationRequests(requests: RecordedRequest[]): RecordedRequest[] {
  return requests.filter((r) => DEPLOYMENT_GENERATE.test(r.path) || FOUNDATION_GENERATE.test(r.path));
}

const AZURE_COMPLETIONS = /^\/openai\/deployments\/[^/]+\/completions$/;
const OPENAI_COMPLETIONS = /^\/v1\/completions$/;
const OIP_GENERATE = /^\/v2\/models\/[^/]+(\/versions\/[^/]+)?\/generate(_stream)?$/;

/**
 * Every request a test made, whatever the protocol, against that protocol's contract: watsonx's schemas from
 * docs/protocols/watsonx.md, the Azure OpenAPI document, the Aleph Alpha 1.16 schemas, the Open Inference OpenAPI
 * document (as recorded in test/contract).
 */
export async function expectValidWire(requests: RecordedRequest[]): Promise<void> {
  const [{ completionsRequestSchema, schemaErrors }, { oipValidators }, { alephAlphaCompletionRequestSchema }] =
    await Promise.all([
      import('../contract/azure-openapi.js'),
      import('../contract/oip-openapi.js'),
      import('../contract/aleph-alpha-schemas.js'),
    ]);
  const watsonx: RecordedRequest[] = [];
  for (const r of requests) {
    const where = `${r.method} ${r.path}`;
    if (await isValidBatchRequest(r)) continue;
    if (await isValidChatRequest(r)) continue;
    if (await isValidResponsesOrAzureV1Request(r)) continue;
    if (AZURE_COMPLETIONS.test(r.path) || OPENAI_COMPLETIONS.test(r.path)) {
      expect(r.method, where).toBe('POST');
      if (AZURE_COMPLETIONS.test(r.path)) expect(r.query['api-version'], `${where}: api-version`).toBeTruthy();
      else expect(typeof (r.json as { model?: unknown }).model, `${where}: model`).toBe('string');
      expect(schemaErrors(completionsRequestSchema(), r.json), where).toBe('');
    } else if (r.path === '/v1/rerank') {
      const { openAiRerankRequestSchema } = await import('../contract/rerank-schemas.js');
      const parsed = openAiRerankRequestSchema.safeParse(r.json);
      expect(parsed.success, `${where}: ${parsed.success ? '' : JSON.stringify(parsed.error.issues)}`).toBe(true);
    } else if (r.path === '/complete') {
      expect(r.method, where).toBe('POST');
      const parsed = alephAlphaCompletionRequestSchema.safeParse(r.json);
      expect(parsed.success, `${where}: ${parsed.success ? '' : JSON.stringify(parsed.error.issues)}`).toBe(true);
    } else if (OIP_GENERATE.test(r.path)) {
      expect(r.method, where).toBe('POST');
      const validate = oipValidators().generateRequest;
      expect(validate(r.json), `${where}: ${JSON.stringify(validate.errors)}`).toBe(true);
    } else {
      watsonx.push(r);
    }
  }
  expectValidWatsonxWire(watsonx);
}

/** Generation requests of any protocol. */
export function anyGenerationRequests(requests: RecordedRequest[]): RecordedRequest[] {
  return requests.filter(
    (r) =>
      DEPLOYMENT_GENERATE.test(r.path) ||
      FOUNDATION_GENERATE.test(r.path) ||
      AZURE_COMPLETIONS.test(r.path) ||
      OPENAI_COMPLETIONS.test(r.path) ||
      r.path === '/complete' ||
      OIP_GENERATE.test(r.path),
  );
}

const BATCH_ROUTE = /^\/(v1|openai|openai\/v1|ml\/v1)\/(files|batches)(\/[^/]+(\/(content|cancel))?)?$/;

/**
 * The batch services' routes (docs/protocols/batch.md, test/contract/batch-schemas.ts): uploads are multipart, a
 * batch creation's body is `BatchCreateParams`, Azure carries `api-version`, watsonx `version` and its project or
 * space. True when `r` is one of them and valid.
 */
async function isValidBatchRequest(r: RecordedRequest): Promise<boolean> {
  const m = BATCH_ROUTE.exec(r.path);
  if (!m) return false;
  const where = `${r.method} ${r.path}`;
  const front = m[1]!;
  if (front === 'openai') expect(r.query['api-version'], `${where}: api-version`).toBeTruthy();
  if (front === 'ml/v1') {
    expect(r.query.version, `${where}: version= query`).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const scope =
      r.headers['x-ibm-project-id'] ?? r.headers['x-ibm-space-id'] ?? r.query.project_id ?? r.query.space_id;
    expect(scope, `${where}: project or space`).toBeTruthy();
  }
  if (r.method === 'POST' && m[2] === 'files' && m[3] === undefined)
    expect(r.headers['content-type'], where).toMatch(/^multipart\/form-data; *boundary=/);
  if (r.method === 'POST' && m[2] === 'batches' && m[3] === undefined) {
    const { batchCreateRequestSchema } = await import('../contract/batch-schemas.js');
    const parsed = batchCreateRequestSchema.safeParse(r.json);
    expect(parsed.success, `${where}: ${parsed.success ? '' : JSON.stringify(parsed.error.issues)}`).toBe(true);
  }
  return true;
}

const WATSONX_CHAT = /^\/ml\/v1\/text\/chat(_stream)?$/;
const WATSONX_DEPLOYMENT_CHAT = /^\/ml\/v1\/deployments\/[^/]+\/text\/chat(_stream)?$/;
const AZURE_CHAT = /^\/openai\/deployments\/[^/]+\/chat\/completions$/;

/** The chat routes of every protocol (test/contract/chat-schemas.ts); true when `r` is one of them and valid. */
async function isValidChatRequest(r: RecordedRequest): Promise<boolean> {
  const c = await import('../contract/chat-schemas.js');
  const where = `${r.method} ${r.path}`;
  const check = (schema: { safeParse(v: unknown): { success: boolean; error?: { issues: unknown } } }) => {
    const parsed = schema.safeParse(r.json);
    expect(parsed.success, `${where}: ${parsed.success ? '' : JSON.stringify(parsed.error?.issues)}`).toBe(true);
  };
  if (WATSONX_CHAT.test(r.path) || WATSONX_DEPLOYMENT_CHAT.test(r.path)) {
    expect(r.method, where).toBe('POST');
    expect(r.query.version, `${where}: version= query`).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    check(WATSONX_CHAT.test(r.path) ? c.watsonxChatRequestSchema : c.watsonxDeploymentChatRequestSchema);
    return true;
  }
  if (AZURE_CHAT.test(r.path)) {
    expect(r.query['api-version'], `${where}: api-version`).toBeTruthy();
    check(c.azureChatRequestSchema);
    return true;
  }
  if (r.path === '/v1/chat/completions') {
    check(c.openAiChatRequestSchema);
    return true;
  }
  if (r.path === '/chat/completions') {
    check(c.alephAlphaChatRequestSchema);
    return true;
  }
  return false;
}

/** Chat requests of any protocol. */
export function chatRequests(requests: RecordedRequest[]): RecordedRequest[] {
  return requests.filter(
    (r) =>
      WATSONX_CHAT.test(r.path) ||
      WATSONX_DEPLOYMENT_CHAT.test(r.path) ||
      AZURE_CHAT.test(r.path) ||
      r.path === '/v1/chat/completions' ||
      r.path === '/chat/completions',
  );
}

const AZURE_V1 = /^\/openai\/v1\/(chat\/completions|completions|embeddings|models|responses(\/[^/]+)?)$/;

/**
 * The Responses API (`/v1/responses`, test/contract/responses-schemas.ts) and Azure's v1 routes (`/openai/v1/…`: the
 * model in the body, no dated api-version); true when `r` is one of them and valid.
 */
async function isValidResponsesOrAzureV1Request(r: RecordedRequest): Promise<boolean> {
  const responses = /^\/(openai\/)?v1\/responses(\/[^/]+)?$/.exec(r.path);
  if (!responses && !AZURE_V1.test(r.path)) return false;
  const where = `${r.method} ${r.path}`;
  if (r.path.startsWith('/openai/v1/')) {
    const version = r.query['api-version'];
    if (version !== undefined) expect(['v1', 'preview', 'latest'], `${where}: api-version`).toContain(version);
  }
  if (r.method === 'GET' || (r.method === 'DELETE' && responses?.[2] !== undefined)) return true;
  expect(r.method, where).toBe('POST');
  if (responses) {
    const { responsesRequestSchema } = await import('../contract/responses-schemas.js');
    const parsed = responsesRequestSchema.safeParse(r.json);
    expect(parsed.success, `${where}: ${parsed.success ? '' : JSON.stringify(parsed.error.issues)}`).toBe(true);
    return true;
  }
  expect(typeof (r.json as { model?: unknown }).model, `${where}: model`).toBe('string');
  if (r.path === '/openai/v1/chat/completions') {
    const { openAiChatRequestSchema } = await import('../contract/chat-schemas.js');
    const parsed = openAiChatRequestSchema.safeParse(r.json);
    expect(parsed.success, `${where}: ${parsed.success ? '' : JSON.stringify(parsed.error.issues)}`).toBe(true);
  }
  return true;
}
