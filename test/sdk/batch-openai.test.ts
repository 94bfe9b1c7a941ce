/**
 * OpenAI's Node SDK (`openai`: `files.create|retrieve|list|content|delete`, `batches.create|retrieve|cancel|list`)
 * as the oracle for `serve`'s batch services on its OpenAI (`/v1`) and Azure OpenAI (`AzureOpenAI`, `/openai`)
 * fronts: every answer must have the shape the SDK's typings declare (test/contract/batch-schemas.ts), and a batch
 * must go through its statuses, run every line on the server's own routes, and account for every input line in its
 * output or error file — through a whole life cycle, a cancel midway, an expiry, partial failures and validation
 * failures. docs/protocols/batch.md describes what is checked here.
 */
import OpenAI, { AzureOpenAI, toFile, type APIError } from 'openai';
import type { Batch } from 'openai/resources/batches';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/emulator/core/index.js';
import {
  azureBatchSchema,
  azureFileObjectSchema,
  batchOutputLineSchema,
  fileDeletedSchema,
  openAiBatchSchema,
  openAiFileObjectSchema,
} from '../contract/batch-schemas.js';

const KEY = 'batch-oracle-key-0123456789';
const AZURE_API_VERSION = '2024-10-21';

let fast: RunningServer;
let paced: RunningServer;
let locked: RunningServer;
beforeAll(async () => {
  [fast, paced, locked] = await Promise.all([
    // A million emulated seconds a second: a batch is done as soon as its lines have run.
    startServer({ batchSpeed: 1_000_000 }),
    // 200: validating and finalizing take 100 ms each, a line 0.5 ms — long enough to watch every status.
    startServer({ batchSpeed: 200 }),
    startServer({ requireAuth: true, apiKeys: [KEY], batchSpeed: 1_000_000 }),
  ]);
});
afterAll(async () => {
  await Promise.all([fast.close(), paced.close(), locked.close()]);
});

function openai(server: RunningServer, key = KEY): OpenAI {
  return new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
}

function azure(server: RunningServer, apiVersion = AZURE_API_VERSION): AzureOpenAI {
  return new AzureOpenAI({ apiKey: KEY, endpoint: server.url, apiVersion, maxRetries: 0 });
}

interface Line {
  custom_id: string;
  method: 'POST';
  url: string;
  body: Record<string, unknown>;
}

function chatLines(n: number, url = '/v1/chat/completions', model = 'gpt-4o-mini'): Line[] {
  return Array.from({ length: n }, (_, i) => ({
    custom_id: `request-${i + 1}`,
    method: 'POST',
    url,
    body: { model, messages: [{ role: 'user', content: `Say something about number ${i + 1}` }], max_tokens: 4 },
  }));
}

function jsonl(lines: readonly unknown[]): string {
  return lines.map((l) => `${typeof l === 'string' ? l : JSON.stringify(l)}\n`).join('');
}

async function upload(client: OpenAI, text: string, name = 'input.jsonl') {
  return client.files.create({ file: await toFile(Buffer.from(text), name), purpose: 'batch' });
}

const TERMINAL = new Set(['completed', 'failed', 'expired', 'cancelled']);

/** Polls until the batch is done, keeping every status seen in order. */
async function settle(client: OpenAI, first: Batch): Promise<{ batch: Batch; seen: string[] }> {
  const seen = [first.status];
  let batch = first;
  while (!TERMINAL.has(batch.status)) {
    await new Promise((resolve) => setTimeout(resolve, 3));
    batch = await client.batches.retrieve(batch.id);
    if (seen.at(-1) !== batch.status) seen.push(batch.status);
  }
  return { batch, seen };
}

async function records(client: OpenAI, fileId: string | null | undefined) {
  if (!fileId) return [];
  const text = await (await client.files.content(fileId)).text();
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => batchOutputLineSchema.parse(JSON.parse(l)));
}

function expectOpenAiBatch(batch: Batch): void {
  const parsed = openAiBatchSchema.safeParse(batch);
  expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
}

describe('the Files API (OpenAI front)', () => {
  it('uploads, retrieves, lists in pages, downloads and deletes a batch file', async () => {
    const client = openai(fast);
    const text = jsonl(chatLines(3));
    const created = [];
    for (const name of ['a.jsonl', 'b.jsonl', 'c.jsonl']) created.push(await upload(client, text, name));
    for (const f of created) {
      expect(openAiFileObjectSchema.safeParse(f).success).toBe(true);
      expect(f.purpose).toBe('batch');
      expect(f.bytes).toBe(Buffer.byteLength(text));
    }
    const one = await client.files.retrieve(created[1]!.id);
    expect(one).toEqual(created[1]);
    // Newest first; the SDK pages on the last id as `after` until has_more is false.
    const firstPage = await client.files.list({ limit: 2, purpose: 'batch' });
    expect(firstPage.data.map((f) => f.id)).toEqual([created[2]!.id, created[1]!.id]);
    expect(firstPage.hasNextPage()).toBe(true);
    const all = [];
    for await (const f of client.files.list({ limit: 2, purpose: 'batch' })) all.push(f.id);
    expect(all.slice(0, 3)).toEqual(created.map((f) => f.id).reverse());
    expect(await (await client.files.content(created[0]!.id)).text()).toBe(text);
    const deleted = await client.files.delete(created[0]!.id);
    expect(fileDeletedSchema.parse(deleted)).toEqual({ id: created[0]!.id, object: 'file', deleted: true });
    const gone = await client.files.retrieve(created[0]!.id).catch((e: APIError) => e);
    expect((gone as APIError).status).toBe(404);
  });

  it('refuses what the service refuses: another purpose, a file that is not .jsonl', async () => {
    const client = openai(fast);
    const purpose = await client.files
      .create({ file: await toFile(Buffer.from('{}\n'), 'x.jsonl'), purpose: 'fine-tune' })
      .catch((e: APIError) => e);
    expect((purpose as APIError).status).toBe(400);
    const format = await upload(client, '{}\n', 'x.csv').catch((e: APIError) => e);
    expect((format as APIError).status).toBe(400);
    expect((format as APIError).message).toContain('Must be .jsonl');
  });

  it('asks for credentials on a server that demands them', async () => {
    const refused = await upload(openai(locked, 'wrong-key'), '{}\n').catch((e: APIError) => e);
    expect((refused as APIError).status).toBe(401);
    expect(openAiFileObjectSchema.safeParse(await upload(openai(locked), jsonl(chatLines(1)))).success).toBe(true);
  });
});

describe('a batch on the OpenAI front', () => {
  it('goes validating → in_progress → finalizing → completed, its lines run on the chat route, output shuffled', async () => {
    const client = openai(paced);
    const lines = chatLines(40);
    const file = await upload(client, jsonl(lines));
    const created = await client.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
      metadata: { job: 'life-cycle' },
    });
    expectOpenAiBatch(created);
    expect(created.status).toBe('validating');
    expect(created.expires_at).toBe(created.created_at + 86_400);
    const { batch, seen } = await settle(client, created);
    expect(seen).toEqual(['validating', 'in_progress', 'finalizing', 'completed']);
    expectOpenAiBatch(batch);
    expect(batch.request_counts).toEqual({ total: 40, completed: 40, failed: 0 });
    expect(batch.model).toBe('gpt-4o-mini');
    expect(batch.metadata).toEqual({ job: 'life-cycle' });
    expect(batch.error_file_id).toBeNull();
    // Each phase's timestamp on the batch's own clock, in order.
    const times = [batch.created_at, batch.in_progress_at, batch.finalizing_at, batch.completed_at] as number[];
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(batch.completed_at! - batch.created_at).toBeGreaterThanOrEqual(40);
    const out = await records(client, batch.output_file_id);
    expect(out.map((r) => r.custom_id).sort()).toEqual(lines.map((l) => l.custom_id).sort());
    // The services do not keep input order; the emulator's order is shuffled, and seeded by the file.
    expect(out.map((r) => r.custom_id)).not.toEqual(lines.map((l) => l.custom_id));
    for (const r of out) {
      expect(r.response?.status_code).toBe(200);
      expect((r.response?.body as { object: string }).object).toBe('chat.completion');
    }
    expect(batch.usage?.total_tokens).toBeGreaterThan(0);
  });

  it('shuffles the same file the same way every time', async () => {
    const client = openai(fast);
    const order = async () => {
      const file = await upload(client, jsonl(chatLines(12)));
      const created = await client.batches.create({
        input_file_id: file.id,
        endpoint: '/v1/chat/completions',
        completion_window: '24h',
      });
      const { batch } = await settle(client, created);
      return (await records(client, batch.output_file_id)).map((r) => r.custom_id);
    };
    expect(await order()).toEqual(await order());
  });

  it('runs completions and embeddings batches on their routes', async () => {
    const client = openai(fast);
    for (const [endpoint, body, object] of [
      ['/v1/completions', { model: 'gpt-3.5-turbo-instruct', prompt: 'Once', max_tokens: 3 }, 'text_completion'],
      ['/v1/embeddings', { model: 'text-embedding-3-small', input: 'hello' }, 'list'],
    ] as const) {
      const file = await upload(client, jsonl([{ custom_id: 'only', method: 'POST', url: endpoint, body }]));
      const created = await client.batches.create({ input_file_id: file.id, endpoint, completion_window: '24h' });
      const { batch } = await settle(client, created);
      expect(batch.status, endpoint).toBe('completed');
      const [r] = await records(client, batch.output_file_id);
      expect((r!.response!.body as { object: string }).object).toBe(object);
    }
  });

  it('a line the route refuses is a non-200 response in the error file, and counts as failed', async () => {
    const client = openai(fast);
    const lines = chatLines(3);
    lines[1]!.body = { model: 'gpt-4o-mini', messages: [], max_tokens: 4 };
    const file = await upload(client, jsonl(lines));
    const created = await client.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    const { batch } = await settle(client, created);
    expect(batch.status).toBe('completed');
    expect(batch.request_counts).toEqual({ total: 3, completed: 2, failed: 1 });
    const [bad] = await records(client, batch.error_file_id);
    expect(bad!.custom_id).toBe('request-2');
    expect(bad!.response!.status_code).toBe(400);
    expect((bad!.response!.body as { error: { message: string } }).error.message).toBeTruthy();
  });

  it('cancel midway: cancelling, then cancelled; what ran is in the output, the rest batch_cancelled', async () => {
    const client = openai(paced);
    const lines = chatLines(400);
    const file = await upload(client, jsonl(lines));
    let batch = await client.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    while (batch.status !== 'in_progress' || (batch.request_counts?.completed ?? 0) < 5) {
      await new Promise((resolve) => setTimeout(resolve, 3));
      batch = await client.batches.retrieve(batch.id);
    }
    const cancelling = await client.batches.cancel(batch.id);
    expectOpenAiBatch(cancelling);
    expect(cancelling.status).toBe('cancelling');
    expect(cancelling.cancelling_at).not.toBeNull();
    const { batch: done, seen } = await settle(client, cancelling);
    expect(seen).toEqual(['cancelling', 'cancelled']);
    expect(done.cancelled_at).toBeGreaterThanOrEqual(done.cancelling_at!);
    const ran = await records(client, done.output_file_id);
    const notRun = await records(client, done.error_file_id);
    expect(ran.length).toBe(done.request_counts!.completed);
    expect(ran.length).toBeGreaterThanOrEqual(5);
    expect(ran.length).toBeLessThan(400);
    expect(notRun.every((r) => r.error?.code === 'batch_cancelled' && r.response === null)).toBe(true);
    const ids = [...ran, ...notRun].map((r) => r.custom_id).sort();
    expect(ids).toEqual(lines.map((l) => l.custom_id).sort());
    const again = await client.batches.cancel(done.id).catch((e: APIError) => e);
    expect((again as APIError).status).toBe(409);
  });

  it('a batch-expire fault: expired with partial output, the rest batch_expired', async () => {
    const client = openai(fast);
    const lines = chatLines(10);
    const file = await upload(client, jsonl(lines));
    const created = await client.batches.create(
      { input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' },
      { headers: { 'X-Textgen-Fault': 'batch-expire:after=4' } },
    );
    const { batch } = await settle(client, created);
    expect(batch.status).toBe('expired');
    expect(batch.expired_at).not.toBeNull();
    expect(batch.request_counts).toEqual({ total: 10, completed: 4, failed: 0 });
    const ran = await records(client, batch.output_file_id);
    const expired = await records(client, batch.error_file_id);
    expect(ran).toHaveLength(4);
    expect(expired).toHaveLength(6);
    expect(expired.every((r) => r.error?.code === 'batch_expired')).toBe(true);
    expect([...ran, ...expired].map((r) => r.custom_id).sort()).toEqual(lines.map((l) => l.custom_id).sort());
  });

  it('a batch-partial fault (queued): every third line fails, as a 500 response or an error record', async () => {
    const client = openai(fast);
    fast.faults.push({ kind: 'batch', effect: 'partial', every: 3 });
    const lines = chatLines(12);
    const file = await upload(client, jsonl(lines));
    const created = await client.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    const { batch } = await settle(client, created);
    expect(batch.status).toBe('completed');
    expect(batch.request_counts).toEqual({ total: 12, completed: 8, failed: 4 });
    const failed = await records(client, batch.error_file_id);
    expect(failed.map((r) => r.custom_id).sort()).toEqual(['request-12', 'request-3', 'request-6', 'request-9']);
    expect(failed.filter((r) => r.response?.status_code === 500)).toHaveLength(2);
    expect(failed.filter((r) => r.response === null && r.error?.code === 'server_error')).toHaveLength(2);
    expect(fast.faults).toHaveLength(0);
  });

  it('a queued batch fault waits for the next batch; a queued status fault leaves the batch routes alone', async () => {
    const client = openai(fast);
    fast.faults.push({ kind: 'batch', effect: 'expire', after: 1 }, { kind: 'status', status: 503 });
    // The generation takes the status fault, not the batch one.
    const refused = await client.completions
      .create({ model: 'gpt-3.5-turbo-instruct', prompt: 'x', max_tokens: 1 })
      .catch((e: APIError) => e);
    expect((refused as APIError).status).toBe(503);
    expect(fast.faults.map((f) => f.kind)).toEqual(['batch']);
    fast.faults.push({ kind: 'status', status: 500 });
    // Uploads and batch routes take no queued fault without path=; the batch takes the batch fault.
    const file = await upload(client, jsonl(chatLines(3)));
    const created = await client.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    expect((await settle(client, created)).batch.status).toBe('expired');
    expect(fast.faults.map((f) => f.kind)).toEqual(['status']);
    fast.faults.length = 0;
  });

  it('a batch-cancel fault: the service cancels it after N lines', async () => {
    const client = openai(fast);
    const file = await upload(client, jsonl(chatLines(6)));
    const created = await client.batches.create(
      { input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' },
      { headers: { 'X-Textgen-Fault': 'batch-cancel:after=2' } },
    );
    const { batch } = await settle(client, created);
    expect(batch.status).toBe('cancelled');
    expect(batch.request_counts?.completed).toBe(2);
    expect(await records(client, batch.error_file_id)).toHaveLength(4);
  });

  it('fails validation with errors.data[{code, message, line}]: bad JSON, duplicate id, wrong url, mixed model', async () => {
    const client = openai(fast);
    const good = chatLines(5);
    const file = await upload(
      client,
      jsonl([
        good[0],
        '{"custom_id": "broken", ',
        { ...good[1], custom_id: 'request-1' },
        { ...good[2], url: '/v1/embeddings' },
        { ...good[3], body: { ...good[3]!.body, model: 'gpt-4o' } },
        good[4],
      ]),
    );
    const created = await client.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    const { batch, seen } = await settle(client, created);
    expect(seen).toEqual(['validating', 'failed']);
    expectOpenAiBatch(batch);
    expect(batch.failed_at).not.toBeNull();
    expect(batch.output_file_id).toBeNull();
    expect(batch.errors?.data?.map((e) => [e.code, e.line])).toEqual([
      ['invalid_json_line', 2],
      ['duplicate_custom_id', 3],
      ['invalid_url', 4],
      ['mismatched_model', 5],
    ]);
  });

  it('a batch-invalid fault fails validation at the line it names', async () => {
    const client = openai(fast);
    fast.faults.push({ kind: 'batch', effect: 'invalid', line: 2 });
    const file = await upload(client, jsonl(chatLines(3)));
    const created = await client.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    const { batch } = await settle(client, created);
    expect(batch.status).toBe('failed');
    expect(batch.errors?.data?.[0]?.line).toBe(2);
  });

  it('over 50 000 requests in one file fails validation, as OpenAI limits it', async () => {
    const client = openai(fast);
    const line = (i: number) =>
      `{"custom_id":"r${i}","method":"POST","url":"/v1/embeddings","body":{"model":"text-embedding-3-small","input":"x"}}\n`;
    const file = await upload(client, Array.from({ length: 50_001 }, (_, i) => line(i)).join(''));
    const created = await client.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/embeddings',
      completion_window: '24h',
    });
    const { batch } = await settle(client, created);
    expect(batch.status).toBe('failed');
    expect(batch.errors?.data?.[0]).toMatchObject({ code: 'too_many_requests', line: null });
  });

  it('refuses a create the service refuses: unknown file, endpoint, window', async () => {
    const client = openai(fast);
    const file = await upload(client, jsonl(chatLines(1)));
    const cases = [
      { input_file_id: 'file-nope', endpoint: '/v1/chat/completions', completion_window: '24h' },
      { input_file_id: file.id, endpoint: '/v1/moderations', completion_window: '24h' },
      { input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '48h' },
    ];
    for (const body of cases) {
      // The typings allow only the service's literals; these are what a careless client sends anyway.
      const e = await client.batches
        .create(body as Parameters<typeof client.batches.create>[0])
        .catch((x: APIError) => x);
      expect((e as APIError).status, JSON.stringify(body)).toBe(400);
    }
    const missing = await client.batches.retrieve('batch_nope').catch((x: APIError) => x);
    expect((missing as APIError).status).toBe(404);
  });

  it('lists batches newest first, in pages (after/limit), as the SDK pages them', async () => {
    const client = openai(fast);
    const file = await upload(client, jsonl(chatLines(1)));
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        (
          await client.batches.create({
            input_file_id: file.id,
            endpoint: '/v1/chat/completions',
            completion_window: '24h',
          })
        ).id,
      );
    const page = await client.batches.list({ limit: 2 });
    expect(page.data.map((b) => b.id)).toEqual([ids[2], ids[1]]);
    page.data.forEach(expectOpenAiBatch);
    const next = await page.getNextPage();
    expect(next.data[0]!.id).toBe(ids[0]);
    const all: string[] = [];
    for await (const b of client.batches.list({ limit: 2 })) all.push(b.id);
    expect(new Set(all).size).toBe(all.length);
    expect(all).toEqual(expect.arrayContaining(ids));
  });
});

describe('a batch on the Azure OpenAI front (AzureOpenAI client)', () => {
  it('uploads, runs a global-batch chat file on its deployment, lists, downloads, deletes', async () => {
    const client = azure(fast);
    const lines = chatLines(5, '/chat/completions', 'gpt-4o-batch');
    const file = await upload(client, jsonl(lines));
    expect(azureFileObjectSchema.safeParse(file).success).toBe(true);
    const created = await client.batches.create({
      input_file_id: file.id,
      // Azure's documents name the endpoint without /v1.
      endpoint: '/chat/completions' as '/v1/chat/completions',
      completion_window: '24h',
    });
    expect(
      azureBatchSchema.safeParse(created).success,
      JSON.stringify(azureBatchSchema.safeParse(created).error?.issues),
    ).toBe(true);
    const { batch } = await settle(client, created);
    expect(batch.status).toBe('completed');
    expect(batch.request_counts).toEqual({ total: 5, completed: 5, failed: 0 });
    const out = await records(client, batch.output_file_id);
    expect(out.map((r) => r.custom_id).sort()).toEqual(lines.map((l) => l.custom_id).sort());
    // The line ran on the deployment its `model` names.
    expect((out[0]!.response!.body as { model: string }).model).toBe('gpt-4o-batch');
    const listed = await client.batches.list();
    expect(listed.data.map((b) => b.id)).toContain(batch.id);
    const mine = await client.files.list();
    expect(mine.data.map((f) => f.id)).toContain(batch.output_file_id);
    expect((await client.files.delete(file.id)).deleted).toBe(true);
  });

  it('cancels midway and expires under a fault, as on OpenAI', async () => {
    const client = azure(fast);
    const file = await upload(client, jsonl(chatLines(8, '/v1/chat/completions', 'gpt-4o-batch')));
    const created = await client.batches.create(
      { input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' },
      { headers: { 'X-Textgen-Fault': 'batch-expire:after=3' } },
    );
    const { batch } = await settle(client, created);
    expect(batch.status).toBe('expired');
    expect(await records(client, batch.output_file_id)).toHaveLength(3);
    const slow = azure(paced);
    const big = await upload(slow, jsonl(chatLines(300, '/chat/completions', 'gpt-4o-batch')));
    const running = await slow.batches.create({
      input_file_id: big.id,
      endpoint: '/chat/completions' as '/v1/chat/completions',
      completion_window: '24h',
    });
    const cancelling = await slow.batches.cancel(running.id);
    expect(cancelling.status).toBe('cancelling');
    expect((await settle(slow, cancelling)).batch.status).toBe('cancelled');
  });

  it("Azure's v1 API (/openai/v1, the OpenAI client, no api-version) sees the same resource's files and batches", async () => {
    const v1 = new OpenAI({ apiKey: KEY, baseURL: `${fast.url}/openai/v1`, maxRetries: 0 });
    const file = await upload(v1, jsonl(chatLines(2, '/v1/chat/completions', 'gpt-4o-batch')));
    const created = await v1.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    const { batch } = await settle(v1, created);
    expect(batch.status).toBe('completed');
    expect((await azure(fast).batches.retrieve(batch.id)).status).toBe('completed');
    expect(await records(v1, batch.output_file_id)).toHaveLength(2);
  });

  it('an api-version without batches is refused', async () => {
    const e = await upload(azure(fast, '2024-02-01'), '{}\n').catch((x: APIError) => x);
    expect((e as APIError).status).toBe(404);
  });
});
