/**
 * The batch routes under the shared server fixture (helpers/server-fixture.ts): what a test of the batch CLI sends
 * is held to the batch contract after each test (helpers/wire.ts: multipart uploads, `BatchCreateParams`, Azure's
 * `api-version`, watsonx's `version` and project or space), and a request that breaks it fails the check.
 */
import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../src/emulator/core/index.js';
import { useServer } from '../helpers/server-fixture.js';
import { expectValidWire } from '../helpers/wire.js';

const fixture = useServer({ batchSpeed: 1_000_000 });

const LINE = `${JSON.stringify({
  custom_id: 'a',
  method: 'POST',
  url: '/v1/embeddings',
  body: { model: 'text-embedding-3-small', input: 'x' },
})}\n`;

async function upload(base: string, headers: Record<string, string> = {}): Promise<string> {
  const form = new FormData();
  form.append('purpose', 'batch');
  form.append('file', new Blob([LINE]), 'in.jsonl');
  const res = await fetch(base, { method: 'POST', body: form, headers });
  expect(res.status).toBeLessThan(300);
  return ((await res.json()) as { id: string }).id;
}

describe('batch routes under the wire check', () => {
  it('OpenAI, Azure and watsonx uploads and creations pass it', async () => {
    const { url } = fixture.server;
    const json = { 'content-type': 'application/json' };
    const openaiFile = await upload(`${url}/v1/files`);
    const created = await fetch(`${url}/v1/batches`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ input_file_id: openaiFile, endpoint: '/v1/embeddings', completion_window: '24h' }),
    });
    expect(created.status).toBe(200);
    await upload(`${url}/openai/files?api-version=2024-10-21`);
    const wx = { 'x-ibm-project-id': 'p1' };
    const wxFile = await upload(`${url}/ml/v1/files?version=2025-02-11`, wx);
    const wxBatch = await fetch(`${url}/ml/v1/batches?version=2025-02-11`, {
      method: 'POST',
      headers: { ...json, ...wx },
      body: JSON.stringify({ input_file_id: wxFile, endpoint: '/v1/embeddings', completion_window: '24h' }),
    });
    expect(wxBatch.status).toBe(201);
    expect(fixture.server.requests.map((r) => r.path)).toEqual([
      '/v1/files',
      '/v1/batches',
      '/openai/files',
      '/ml/v1/files',
      '/ml/v1/batches',
    ]);
  });

  it('a creation body the contract does not allow fails the check', async () => {
    const bad: RecordedRequest = {
      method: 'POST',
      path: '/v1/batches',
      query: {},
      headers: { 'content-type': 'application/json' },
      body: '{}',
      json: { input_file_id: 'f', endpoint: '/v1/embeddings', completion_window: '24h', surprise: true },
    };
    await expect(expectValidWire([bad])).rejects.toThrow(/surprise|unrecognized/i);
  });
});
