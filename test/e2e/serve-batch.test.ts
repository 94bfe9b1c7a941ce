/**
 * `textgen serve --batch-speed N` as a process: the batch services' clock runs N emulated seconds a real second,
 * so a batch's phases (20 s validating, 0.1 s a line, 20 s finalizing) finish at once at 86 400 and stay put at 1;
 * a bad value is a usage error; `--fault batch-…` queues a batch switch at start. docs/protocols/batch.md.
 */
import { execa, type ResultPromise } from 'execa';
import OpenAI, { toFile } from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, baseEnv, makeHome } from '../helpers/run-cli.js';

const home = makeHome();
const children: ResultPromise[] = [];

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

function start(args: string[]): ResultPromise {
  const child = execa('node', [BIN, 'serve', '--port', '0', ...args], {
    env: { ...baseEnv(), CI: 'true', ...home.env },
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    timeout: 30_000,
  });
  children.push(child);
  return child;
}

async function serve(args: string[]): Promise<OpenAI> {
  const child = start(args);
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr?.on('data', (b: Buffer) => {
      stderr += b.toString('utf8');
      const m = /listening on (https?:\/\/\S+)/.exec(stderr);
      if (m) resolve(m[1]!);
    });
    void child.then(() => reject(new Error(`serve ended before listening: ${stderr}`)));
  });
  return new OpenAI({ apiKey: 'k', baseURL: `${url}/v1`, maxRetries: 0 });
}

const LINES = Array.from({ length: 10 }, (_, i) =>
  JSON.stringify({
    custom_id: `r${i}`,
    method: 'POST',
    url: '/v1/embeddings',
    body: { model: 'text-embedding-3-small', input: `text ${i}` },
  }),
).join('\n');

async function submit(client: OpenAI) {
  const file = await client.files.create({ file: await toFile(Buffer.from(LINES), 'in.jsonl'), purpose: 'batch' });
  return client.batches.create({ input_file_id: file.id, endpoint: '/v1/embeddings', completion_window: '24h' });
}

describe('serve --batch-speed', () => {
  it('86400: a batch is done at once, its timestamps 20 s + 10 × 0.1 s + 20 s apart on its own clock', async () => {
    const client = await serve(['--batch-speed', '86400']);
    let batch = await submit(client);
    while (batch.status !== 'completed') {
      await new Promise((resolve) => setTimeout(resolve, 5));
      batch = await client.batches.retrieve(batch.id);
      expect(['validating', 'in_progress', 'finalizing', 'completed']).toContain(batch.status);
    }
    expect(batch.in_progress_at! - batch.created_at).toBe(20);
    expect(batch.finalizing_at! - batch.in_progress_at!).toBe(1);
    expect(batch.completed_at! - batch.finalizing_at!).toBe(20);
    expect(batch.request_counts).toEqual({ total: 10, completed: 10, failed: 0 });
  });

  it('1: a batch is still validating while its 20 emulated seconds last in real time', async () => {
    const client = await serve(['--batch-speed', '1']);
    const batch = await submit(client);
    expect(batch.status).toBe('validating');
    for (let i = 0; i < 5; i++) expect((await client.batches.retrieve(batch.id)).status).toBe('validating');
  });

  it('--fault batch-expire:after=3 at start: the first batch expires with 3 lines done', async () => {
    const client = await serve(['--batch-speed', '1000000', '--fault', 'batch-expire:after=3']);
    let batch = await submit(client);
    while (!['expired', 'completed'].includes(batch.status)) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      batch = await client.batches.retrieve(batch.id);
    }
    expect(batch.status).toBe('expired');
    expect(batch.request_counts?.completed).toBe(3);
  });

  it.each([['0'], ['fast'], ['-3']])('--batch-speed %s is a usage error (exit 2, one line)', async (value) => {
    const r = await start(['--batch-speed', value]);
    expect(r.exitCode).toBe(2);
    expect(String(r.stdout)).toBe('');
    expect(String(r.stderr)).toMatch(/^error: --batch-speed /m);
    expect(String(r.stderr)).not.toMatch(/\n\s+at /);
  });
});
