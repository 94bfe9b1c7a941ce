/**
 * `batch submit|status|wait|results|cancel|list` through the built CLI against a scripted batch service
 * (test/helpers/fake-batch-service.ts): the records in input order with 0 lines lost and 0 duplicated, splitting,
 * the state file after a kill, the double-submit refusal, cancel, expiry, partial failures, and validation before
 * anything is uploaded.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeBatchService, type FakeBatchService } from '../helpers/fake-batch-service.js';
import { makeHome, runBin } from '../helpers/run-cli.js';
import { runOnTerminal, stripEscapes } from '../helpers/pty.js';

const home = makeHome();
const dir = mkdtempSync(join(tmpdir(), 'textgen-provider-batch-'));
let fake: FakeBatchService;

function profiles(url: string): void {
  mkdirSync(join(home.dir, 'config', 'textgen'), { recursive: true });
  writeFileSync(
    join(home.dir, 'config', 'textgen', 'config.yaml'),
    [
      'profiles:',
      `  oa: { provider: openai, url: "${url}", auth: { type: none } }`,
      `  az: { provider: azure-openai, url: "${url}", auth: { type: none } }`,
      `  wx: { provider: watsonx, url: "${url}", auth: { type: none } }`,
      '',
    ].join('\n'),
  );
}

beforeAll(async () => {
  fake = await startFakeBatchService();
  profiles(fake.url);
});
afterEach(() => {
  fake.options.failIds = undefined;
  fake.options.end = undefined;
  fake.options.maxLines = undefined;
});
afterAll(async () => {
  await fake.close();
  home.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const cli = (args: string[], timeout = 60_000) =>
  runBin(['--retries', '0', ...args], { env: home.env, cwd: dir, timeout });

function writeLines(name: string, lines: string[]): string {
  const path = join(dir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

function records(text: string): Array<{ line: number; id?: unknown; result?: any; error?: any }> {
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));
}

describe('batch submit and results', () => {
  it('submits textgen lines, waits and writes one record per line in input order (the service shuffles)', async () => {
    writeLines('small.jsonl', [
      '{"input": "a", "id": "q1"}',
      '"b"',
      '',
      '{"input": "c", "parameters": {"max_new_tokens": 5}}',
    ]);
    const r = await cli([
      '--profile',
      'oa',
      'batch',
      'submit',
      'small.jsonl',
      '-m',
      'gpt-x',
      '--wait',
      '--interval',
      '0.5',
    ]);
    expect(r.stderr).not.toMatch(/^error/m);
    expect(r.exitCode).toBe(0);
    const recs = records(r.stdout);
    expect(recs.map((x) => x.line)).toEqual([1, 2, 4]);
    expect(recs[0]!.id).toBe('q1');
    expect(recs[0]!.result.results[0].generated_text).toBe('re: a');
    expect(recs[2]!.result.results[0].generated_text).toBe('re: c');
    // The upload holds the provider's lines, with custom_ids from the ids or the line numbers.
    const uploaded = [...fake.files.values()].find((f) => f.includes('"custom_id":"q1"'))!;
    const lines = uploaded
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.custom_id)).toEqual(['q1', 'line-2', 'line-4']);
    expect(lines[0]).toMatchObject({ method: 'POST', url: '/v1/completions', body: { model: 'gpt-x', prompt: 'a' } });
    expect(lines[2].body.max_tokens).toBe(5);
    // The state file is private.
    expect(statSync(join(dir, 'small.jsonl.batch.json')).mode & 0o777).toBe(0o600);
  });

  it('refuses a line that would fail before uploading anything, with the --batch --dry-run words', async () => {
    writeLines('bad.jsonl', ['{"input": "a"}', '{"input": "b", "parameters": {"max_new_tokenz": 5}}', '{"inpt": "c"}']);
    const before = fake.uploads;
    const r = await cli(['--profile', 'oa', 'batch', 'submit', 'bad.jsonl', '-m', 'gpt-x']);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/line 2: .*max_new_tokenz/);
    expect(r.stderr).toMatch(/line 3: unknown field "inpt"/);
    expect(r.stderr).toMatch(/^error: 2 lines of bad\.jsonl would fail \(lines 2, 3\): nothing was uploaded/m);
    expect(fake.uploads).toBe(before);
  });

  it('refuses duplicate custom_ids before uploading', async () => {
    writeLines('dup.jsonl', ['{"input": "a", "id": 7}', '{"input": "b", "id": "7"}']);
    const before = fake.uploads;
    const r = await cli(['--profile', 'oa', 'batch', 'submit', 'dup.jsonl', '-m', 'gpt-x']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/line 2: custom_id "7" is also the custom_id of line 1/);
    expect(fake.uploads).toBe(before);
  });

  it('a second submit of the same input refuses, naming the state file and the way out', async () => {
    writeLines('twice.jsonl', ['"a"', '"b"']);
    const first = await cli(['--profile', 'oa', 'batch', 'submit', 'twice.jsonl', '-m', 'gpt-x']);
    expect(first.exitCode).toBe(0);
    expect(first.stdout).toMatch(/^batch-\d+\n$/);
    const creates = fake.creates;
    const again = await cli(['--profile', 'oa', 'batch', 'submit', 'twice.jsonl', '-m', 'gpt-x']);
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toMatch(
      /^error: twice\.jsonl was already submitted: twice\.jsonl\.batch\.json holds 1 batch/m,
    );
    expect(again.stderr).toMatch(/--state/);
    expect(fake.creates).toBe(creates);
  });

  it('splits a file over the limit into several batches and puts the records back in input order', async () => {
    fake.options.maxLines = 400;
    const lines = Array.from({ length: 1000 }, (_, i) => JSON.stringify({ input: `p${i + 1}` }));
    writeLines('split.jsonl', lines);
    const sub = await cli(['--profile', 'oa', 'batch', 'submit', 'split.jsonl', '-m', 'gpt-x', '--max-lines', '400']);
    expect(sub.exitCode).toBe(0);
    expect(sub.stdout.trim().split('\n')).toHaveLength(3);
    const res = await cli([
      '--profile',
      'oa',
      'batch',
      'results',
      '--state',
      'split.jsonl.batch.json',
      '--out',
      'split.out.jsonl',
      '--interval',
      '0.5',
    ]);
    expect(res.exitCode).toBe(0);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/batch results: 1000 records, 1000 succeeded, 0 failed \(3 batches\)/);
    const recs = records(readFileSync(join(dir, 'split.out.jsonl'), 'utf8'));
    expect(recs.map((r) => r.line)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
    expect(recs.every((r, i) => r.result.results[0].generated_text === `re: p${i + 1}`)).toBe(true);
    // batch merge takes the records as they are.
    const merged = await cli(['batch', 'merge', '--input', 'split.jsonl', 'split.out.jsonl']);
    expect(merged.exitCode).toBe(0);
  });

  it('partial failures: error records in place, exit 4', async () => {
    fake.options.failIds = new Set(['line-2']);
    writeLines('partial.jsonl', ['"a"', '"b"', '"c"']);
    const r = await cli([
      '--profile',
      'oa',
      'batch',
      'submit',
      'partial.jsonl',
      '-m',
      'gpt-x',
      '--wait',
      '--interval',
      '0.5',
    ]);
    expect(r.exitCode).toBe(4);
    const recs = records(r.stdout);
    expect(recs.map((x) => x.line)).toEqual([1, 2, 3]);
    expect(recs[1]!.error).toMatchObject({ exit_code: 4, status: 400, code: 'bad_line' });
    expect(recs[1]!.error.message).toMatch(/bad request line-2/);
  });

  it('an expired batch: the lines it never ran get error records; none lost, none twice', async () => {
    fake.options.end = 'expire';
    writeLines('expire.jsonl', ['"a"', '"b"', '"c"', '"d"']);
    const r = await cli([
      '--profile',
      'oa',
      'batch',
      'submit',
      'expire.jsonl',
      '-m',
      'gpt-x',
      '--wait',
      '--interval',
      '0.5',
    ]);
    expect(r.exitCode).toBe(4);
    const recs = records(r.stdout);
    expect(recs.map((x) => x.line)).toEqual([1, 2, 3, 4]);
    expect(recs.filter((x) => x.result).length).toBe(2);
    expect(recs[3]!.error.message).toMatch(/not run: batch batch-\d+ ended expired/);
  });

  it('cancel keeps the finished work; results fetches it', async () => {
    writeLines('cancel.jsonl', ['"a"', '"b"', '"c"', '"d"']);
    const sub = await cli(['--profile', 'oa', 'batch', 'submit', 'cancel.jsonl', '-m', 'gpt-x']);
    expect(sub.exitCode).toBe(0);
    const c = await cli(['--profile', 'oa', 'batch', 'cancel', '--state', 'cancel.jsonl.batch.json']);
    expect(c.exitCode).toBe(0);
    expect(c.stdout).toMatch(/batch-\d+ {2}cancelling/);
    const r = await cli([
      '--profile',
      'oa',
      'batch',
      'results',
      '--state',
      'cancel.jsonl.batch.json',
      '--interval',
      '0.5',
    ]);
    expect(r.exitCode).toBe(4);
    const recs = records(r.stdout);
    expect(recs.map((x) => x.line)).toEqual([1, 2, 3, 4]);
    expect(recs.filter((x) => x.result).length).toBe(2);
    expect(r.stderr).toMatch(/2 never ran/);
  });

  it('status and list', async () => {
    writeLines('status.jsonl', ['"a"']);
    const sub = await cli([
      '--profile',
      'oa',
      'batch',
      'submit',
      'status.jsonl',
      '-m',
      'gpt-x',
      '--metadata',
      'team=x',
    ]);
    const id = sub.stdout.trim();
    const s = await cli(['--profile', 'oa', 'batch', 'status', id, '-o', 'json']);
    expect(s.exitCode).toBe(0);
    expect(JSON.parse(s.stdout)).toMatchObject({ id, metadata: { team: 'x' } });
    const job = await cli(['--profile', 'oa', 'batch', 'status', '--state', 'status.jsonl.batch.json']);
    expect(job.stdout).toMatch(/^job .*status\.jsonl \(status\.jsonl\.batch\.json\): 1 batch/);
    const l = await cli(['--profile', 'oa', 'batch', 'list', '--limit', '2']);
    expect(l.exitCode).toBe(0);
    expect(l.stdout).toMatch(/^ID +STATUS +ENDPOINT/);
    expect(l.stderr).toMatch(/--after batch-\d+/);
    const all = await cli(['--profile', 'oa', 'batch', 'list', '--limit', '2', '--all', '-o', 'json']);
    expect(JSON.parse(all.stdout).length).toBe(fake.batches.size);
  });

  it('Azure: the deployment as model, the route without /v1, an api-version with batches', async () => {
    writeLines('azure.jsonl', ['{"messages": [{"role": "user", "content": "hi"}]}']);
    const r = await cli([
      '--profile',
      'az',
      'batch',
      'submit',
      'azure.jsonl',
      '--endpoint',
      'chat',
      '-m',
      'my-gpt4o',
      '--wait',
      '--interval',
      '0.5',
    ]);
    expect(r.stderr).not.toMatch(/^error/m);
    expect(r.exitCode).toBe(0);
    expect(records(r.stdout)[0]!.result.choices[0].message.content).toBe('re: hi');
    expect(fake.seen).toContainEqual(expect.stringMatching(/^POST \/openai\/batches\?api-version=2024-10-21$/));
    const uploaded = [...fake.files.values()].find((f) => f.includes('my-gpt4o'))!;
    expect(JSON.parse(uploaded.trim())).toMatchObject({ url: '/chat/completions', body: { model: 'my-gpt4o' } });
  });

  it('watsonx: the space from --space-id, in the header and the query', async () => {
    writeLines('wx.jsonl', ['"a"']);
    const no = await cli(['--profile', 'wx', 'batch', 'submit', 'wx.jsonl', '-m', 'ibm/granite']);
    expect(no.exitCode).toBe(2);
    expect(no.stderr).toMatch(/space_id or project_id/);
    const r = await cli(['--profile', 'wx', 'batch', 'submit', 'wx.jsonl', '-m', 'ibm/granite', '--space-id', 'sp-9']);
    expect(r.stderr).not.toMatch(/^error/m);
    expect(r.exitCode).toBe(0);
    expect(fake.seen).toContainEqual(expect.stringMatching(/^POST \/ml\/v1\/batches\?version=[^&]+&space_id=sp-9$/));
    expect(fake.headers.at(-1)!['x-ibm-space-id']).toBe('sp-9');
    const uploaded = [...fake.files.values()].find((f) => f.includes('ibm/granite'))!;
    expect(JSON.parse(uploaded.trim())).toMatchObject({
      url: '/ml/v1/text/generation',
      body: { model_id: 'ibm/granite', input: 'a', space_id: 'sp-9' },
    });
  });

  it('wait on a terminal: a progress line with the counts, erased at the end; in a pipe none', async () => {
    writeLines('tty.jsonl', ['"a"', '"b"', '"c"']);
    const sub = await cli(['--profile', 'oa', 'batch', 'submit', 'tty.jsonl', '-m', 'gpt-x']);
    const id = sub.stdout.trim();
    const tty = await runOnTerminal(
      ['--profile', 'oa', 'batch', 'wait', id, '--interval', '0.5'],
      { ...home.env },
      { timeoutMs: 60_000 },
    );
    expect(tty.exitCode).toBe(0);
    const screen = stripEscapes(tty.screen);
    expect(screen).toMatch(/batch: 0\/3 done · 0 failed · in_progress/);
    expect(screen).toMatch(/completed {2}3\/3 done, 0 failed/);
    const piped = await cli(['--profile', 'oa', 'batch', 'wait', id]);
    expect(piped.exitCode).toBe(0);
    expect(piped.stderr).not.toMatch(/done ·/);
  });
});
