/**
 * IBM's SDK (`@ibm-cloud/watsonx-ai` 1.7.x: `BatchInference` and its `files`, the batch calls it added in 1.7.11)
 * as the oracle for `serve`'s watsonx batch service: `files.upload|getDetails|list|getContent`, `create`,
 * `getDetails`, `list`, `cancel`, with the project or space the SDK puts in `X-IBM-PROJECT-ID`/`X-IBM-SPACE-ID` and
 * the API key it sends as a bearer token. The SDK has no call for deleting a file, so that one is raw HTTP. Answers
 * must have the shapes of the SDK's typings (test/contract/batch-schemas.ts); docs/protocols/batch.md.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BatchInference } from '@ibm-cloud/watsonx-ai/batch_inference';
import type {
  Batch,
  BatchCollection,
  UploadedFile,
  UploadedFileCollection,
} from '@ibm-cloud/watsonx-ai/batch_inference';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/emulator/core/index.js';
import {
  batchOutputLineSchema,
  fileDeletedSchema,
  pageSchema,
  watsonxBatchSchema,
  watsonxFileSchema,
} from '../contract/batch-schemas.js';

const KEY = 'watsonx-batch-key-0123456789';
const PROJECT = 'project-0f1e2d3c';
const VERSION = '2025-02-11';

let server: RunningServer;
let paced: RunningServer;
let dir: string;
beforeAll(async () => {
  [server, paced] = await Promise.all([
    startServer({ requireAuth: true, apiKeys: [KEY], batchSpeed: 1_000_000 }),
    startServer({ requireAuth: true, apiKeys: [KEY], batchSpeed: 200 }),
  ]);
  dir = mkdtempSync(join(tmpdir(), 'textgen-wx-batch-'));
});
afterAll(async () => {
  await Promise.all([server.close(), paced.close()]);
  rmSync(dir, { recursive: true, force: true });
});

function client(on: RunningServer = server, apikey = KEY): BatchInference {
  return new BatchInference({ apikey, serviceUrl: on.url, version: VERSION, projectId: PROJECT });
}

let n = 0;
function inputFile(lines: readonly unknown[]): string {
  const path = join(dir, `input-${++n}.jsonl`);
  writeFileSync(path, lines.map((l) => `${typeof l === 'string' ? l : JSON.stringify(l)}\n`).join(''));
  return path;
}

function chatLines(count: number, url = '/ml/v1/text/chat') {
  return Array.from({ length: count }, (_, i) => ({
    custom_id: `line-${i + 1}`,
    method: 'POST',
    url,
    body:
      url === '/ml/v1/text/chat'
        ? {
            model_id: 'ibm/granite-3-8b-instruct',
            messages: [{ role: 'user', content: `Hello ${i + 1}` }],
            max_tokens: 4,
          }
        : {
            model: 'ibm/granite-3-8b-instruct',
            messages: [{ role: 'user', content: `Hello ${i + 1}` }],
            max_tokens: 4,
          },
  }));
}

const TERMINAL = new Set(['completed', 'failed', 'expired', 'cancelled']);

async function settle(wx: BatchInference, first: Batch): Promise<{ batch: Batch; seen: string[] }> {
  const seen = [first.status!];
  let batch = first;
  while (!TERMINAL.has(batch.status!)) {
    await new Promise((resolve) => setTimeout(resolve, 3));
    batch = (await wx.getDetails({ batchId: batch.id!, projectId: PROJECT })).result as Batch;
    if (seen.at(-1) !== batch.status) seen.push(batch.status!);
  }
  return { batch, seen };
}

/** The file's JSONL records; the SDK hands back the body as text (or, for one line, parsed). */
async function records(wx: BatchInference, fileId: string | null | undefined) {
  if (!fileId) return [];
  const { result } = await wx.files.getContent({ fileId, projectId: PROJECT });
  const text = typeof result === 'string' ? result : `${JSON.stringify(result)}\n`;
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => batchOutputLineSchema.parse(JSON.parse(l)));
}

function expectBatch(batch: unknown): void {
  const parsed = watsonxBatchSchema.safeParse(batch);
  expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
}

describe('IBM SDK files against serve', () => {
  it('uploads (multipart, purpose batch), lists in pages, reads back and gets details', async () => {
    const wx = client();
    const path = inputFile(chatLines(2));
    const uploaded: UploadedFile[] = [];
    for (let i = 0; i < 3; i++)
      uploaded.push((await wx.files.upload({ file: path, projectId: PROJECT })).result as UploadedFile);
    for (const f of uploaded) expect(watsonxFileSchema.safeParse(f).success).toBe(true);
    expect(uploaded[0]!.purpose).toBe('batch');
    const details = (await wx.files.getDetails({ fileId: uploaded[0]!.id!, projectId: PROJECT })).result;
    expect(details).toEqual(uploaded[0]);
    const page = (await wx.files.getDetails({ projectId: PROJECT, limit: 2 })).result as UploadedFileCollection;
    expect(pageSchema(watsonxFileSchema).safeParse(page).success).toBe(true);
    expect(page.data.map((f) => f.id)).toEqual([uploaded[2]!.id, uploaded[1]!.id]);
    expect(page.has_more).toBe(true);
    const rest = await wx.files.list({ projectId: PROJECT, after: page.last_id!, limit: 2 });
    expect(rest[0]!.id).toBe(uploaded[0]!.id);
    const { result } = await wx.files.getContent({ fileId: uploaded[0]!.id!, projectId: PROJECT });
    expect(String(result).split('\n').filter(Boolean)).toHaveLength(2);
  });

  it('keeps files per project: another project does not see them; a space has its own', async () => {
    const wx = client();
    const f = (await wx.files.upload({ file: inputFile(chatLines(1)), projectId: PROJECT })).result as UploadedFile;
    const other = await wx.files
      .getDetails({ fileId: f.id!, projectId: 'another-project' })
      .catch((e: { status: number }) => e);
    expect((other as { status: number }).status).toBe(404);
    const spaced = await wx.files.list({ spaceId: 'space-1' });
    expect(spaced).toEqual([]);
  });

  it('deletes a file (raw HTTP: the SDK has no call for it) and refuses a wrong key', async () => {
    const wx = client();
    const f = (await wx.files.upload({ file: inputFile(chatLines(1)), projectId: PROJECT })).result as UploadedFile;
    const url = `${server.url}/ml/v1/files/${f.id}?version=${VERSION}`;
    const headers = { authorization: `Bearer ${KEY}`, 'x-ibm-project-id': PROJECT };
    const res = await fetch(url, { method: 'DELETE', headers });
    expect(res.status).toBe(200);
    expect(fileDeletedSchema.parse(await res.json())).toEqual({ id: f.id, object: 'file', deleted: true });
    expect((await fetch(url, { headers })).status).toBe(404);
    const refused = await client(server, 'not-the-key')
      .files.list({ projectId: PROJECT })
      .catch((e: { status: number }) => e);
    expect((refused as { status: number }).status).toBe(401);
  });
});

describe('IBM SDK batches against serve', () => {
  it('a whole life cycle on /ml/v1/text/chat: statuses, counts, output in a shuffled order', async () => {
    const wx = client(paced);
    const lines = chatLines(30);
    const file = (await wx.files.upload({ file: inputFile(lines), projectId: PROJECT })).result as UploadedFile;
    const created = (
      await wx.create({
        inputFileId: file.id!,
        endpoint: '/ml/v1/text/chat',
        completionWindow: '24h',
        projectId: PROJECT,
        metadata: { job: 'wx' },
      })
    ).result as Batch;
    expectBatch(created);
    expect(created.status).toBe('validating');
    const { batch, seen } = await settle(wx, created);
    expect(seen).toEqual(['validating', 'in_progress', 'finalizing', 'completed']);
    expectBatch(batch);
    expect(batch.request_counts).toEqual({ total: 30, completed: 30, failed: 0 });
    expect(batch.metadata).toEqual({ job: 'wx' });
    const out = await records(wx, batch.output_file_id);
    expect(out.map((r) => r.custom_id).sort()).toEqual(lines.map((l) => l.custom_id).sort());
    expect(out.map((r) => r.custom_id)).not.toEqual(lines.map((l) => l.custom_id));
    // watsonx's chat answer, run in the batch's project.
    expect((out[0]!.response!.body as { model_id: string }).model_id).toBe('ibm/granite-3-8b-instruct');
    const listed = (await wx.getDetails({ projectId: PROJECT, limit: 5 })).result as BatchCollection;
    expect(pageSchema(watsonxBatchSchema).safeParse(listed).success).toBe(true);
    expect(listed.data[0]!.id).toBe(batch.id);
    expect((await wx.list({ projectId: PROJECT })).map((b) => b.id)).toContain(batch.id);
  });

  it('the OpenAI-compatible endpoint IBM documents (/v1/chat/completions) runs too', async () => {
    const wx = client();
    const file = (await wx.files.upload({ file: inputFile(chatLines(3, '/v1/chat/completions')), projectId: PROJECT }))
      .result as UploadedFile;
    const created = (
      await wx.create({
        inputFileId: file.id!,
        endpoint: '/v1/chat/completions',
        completionWindow: '24h',
        projectId: PROJECT,
      })
    ).result as Batch;
    const { batch } = await settle(wx, created);
    expect(batch.status).toBe('completed');
    expect(await records(wx, batch.output_file_id)).toHaveLength(3);
  });

  it('cancel midway keeps what ran; the rest is batch_cancelled', async () => {
    const wx = client(paced);
    const lines = chatLines(300);
    const file = (await wx.files.upload({ file: inputFile(lines), projectId: PROJECT })).result as UploadedFile;
    let batch = (
      await wx.create({
        inputFileId: file.id!,
        endpoint: '/ml/v1/text/chat',
        completionWindow: '24h',
        projectId: PROJECT,
      })
    ).result as Batch;
    while (batch.status !== 'in_progress' || (batch.request_counts?.completed ?? 0) < 3) {
      await new Promise((resolve) => setTimeout(resolve, 3));
      batch = (await wx.getDetails({ batchId: batch.id!, projectId: PROJECT })).result as Batch;
    }
    const cancelling = (await wx.cancel({ batchId: batch.id!, projectId: PROJECT })).result as Batch;
    expect(cancelling.status).toBe('cancelling');
    const { batch: done } = await settle(wx, cancelling);
    expect(done.status).toBe('cancelled');
    const ran = await records(wx, done.output_file_id);
    const notRun = await records(wx, done.error_file_id);
    expect(ran.length).toBeGreaterThanOrEqual(3);
    expect(notRun.every((r) => r.error?.code === 'batch_cancelled')).toBe(true);
    expect([...ran, ...notRun].map((r) => r.custom_id).sort()).toEqual(lines.map((l) => l.custom_id).sort());
  });

  it('expiry and partial failure under the batch-* faults', async () => {
    const wx = client();
    const lines = chatLines(9);
    const file = (await wx.files.upload({ file: inputFile(lines), projectId: PROJECT })).result as UploadedFile;
    const create = (fault: string) =>
      wx.create({
        inputFileId: file.id!,
        endpoint: '/ml/v1/text/chat',
        completionWindow: '24h',
        projectId: PROJECT,
        headers: { 'X-Textgen-Fault': fault },
      });
    const expired = (await settle(wx, (await create('batch-expire:after=5')).result as Batch)).batch;
    expect(expired.status).toBe('expired');
    expect(await records(wx, expired.output_file_id)).toHaveLength(5);
    expect((await records(wx, expired.error_file_id)).every((r) => r.error?.code === 'batch_expired')).toBe(true);
    const partial = (await settle(wx, (await create('batch-partial:every=3')).result as Batch)).batch;
    expect(partial.request_counts).toEqual({ total: 9, completed: 6, failed: 3 });
    const failed = await records(wx, partial.error_file_id);
    // The 500 answers are in watsonx's error shape.
    const answered = failed.find((r) => r.response !== null);
    expect((answered!.response!.body as { errors: { code: string }[] }).errors[0]!.code).toBe('internal_server_error');
  });

  it('a window shorter than the work expires on the batch clock: 25 s = 20 s validating + 50 lines of 0.1 s', async () => {
    const wx = client();
    const file = (await wx.files.upload({ file: inputFile(chatLines(80)), projectId: PROJECT })).result as UploadedFile;
    const created = (
      await wx.create({
        inputFileId: file.id!,
        endpoint: '/ml/v1/text/chat',
        completionWindow: '25s',
        projectId: PROJECT,
      })
    ).result as Batch;
    expect(created.expires_at! - created.created_at!).toBe(25);
    const { batch } = await settle(wx, created);
    expect(batch.status).toBe('expired');
    expect(batch.request_counts).toEqual({ total: 80, completed: 50, failed: 0 });
    expect(batch.expired_at).toBe(batch.expires_at);
    expect(await records(wx, batch.error_file_id)).toHaveLength(30);
  });

  it('fails validation with the errors as messages naming line and code, as the SDK types them', async () => {
    const wx = client();
    const good = chatLines(3);
    const file = (
      await wx.files.upload({
        file: inputFile([good[0], { ...good[1], custom_id: 'line-1' }, { ...good[2], url: '/ml/v1/text/generation' }]),
        projectId: PROJECT,
      })
    ).result as UploadedFile;
    const created = (
      await wx.create({
        inputFileId: file.id!,
        endpoint: '/ml/v1/text/chat',
        completionWindow: '24h',
        projectId: PROJECT,
      })
    ).result as Batch;
    const { batch } = await settle(wx, created);
    expect(batch.status).toBe('failed');
    expectBatch(batch);
    expect(batch.errors).toEqual([
      expect.stringMatching(/^line 2: duplicate_custom_id: /),
      expect.stringMatching(/^line 3: invalid_url: /),
    ]);
  });

  it('needs a project or a space, and a version', async () => {
    const headers = { authorization: `Bearer ${KEY}` };
    const noScope = await fetch(`${server.url}/ml/v1/batches?version=${VERSION}`, { headers });
    expect(noScope.status).toBe(400);
    const noVersion = await fetch(`${server.url}/ml/v1/batches`, { headers: { ...headers, 'x-ibm-space-id': 's' } });
    expect(noVersion.status).toBe(400);
    expect(((await noVersion.json()) as { errors: { message: string }[] }).errors[0]!.message).toContain('version');
  });
});
