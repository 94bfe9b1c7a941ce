/**
 * The parts of serve's batch services that need no server: input validation (the codes and lines of
 * docs/protocols/batch.md), the multipart upload parser, the seeded shuffle, the store's pages and bounds, the window.
 */
import { describe, expect, it } from 'vitest';
import { validateInput, type LineRules } from '../../src/emulator/batch/input-lines.js';
import { parseMultipart } from '../../src/emulator/batch/multipart.js';
import { windowSeconds } from '../../src/emulator/batch/pace.js';
import { shuffled } from '../../src/emulator/batch/runner.js';
import { BatchStore } from '../../src/emulator/batch/store.js';

const RULES: LineRules = {
  limits: { maxLines: 5, maxFileBytes: 10_000, maxFiles: 10, maxActiveBatches: 10 },
  urls: ['/v1/chat/completions'],
  modelOf: (body) => (typeof body.model === 'string' ? body.model : undefined),
};

const line = (id: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ custom_id: id, method: 'POST', url: '/v1/chat/completions', body: { model: 'm' }, ...extra });

describe('validateInput', () => {
  it('takes good lines, skipping blank ones, and reports the model', () => {
    const v = validateInput(`${line('a')}\n\n${line('b')}\n`, RULES);
    expect(v).toMatchObject({ ok: true, model: 'm' });
    expect(v.ok && v.lines.map((l) => [l.customId, l.line])).toEqual([
      ['a', 1],
      ['b', 3],
    ]);
  });

  it('names each problem with its code and 1-based line', () => {
    const text = [
      line('a'),
      'not json',
      '[1]',
      JSON.stringify({ custom_id: 'x', method: 'POST', url: '/v1/chat/completions' }),
      line('a'),
    ].join('\n');
    const v = validateInput(text, { ...RULES, limits: { ...RULES.limits, maxLines: 100 } });
    expect(v.ok).toBe(false);
    expect(!v.ok && v.errors.map((e) => [e.code, e.line])).toEqual([
      ['invalid_json_line', 2],
      ['invalid_json_line', 3],
      ['missing_required_parameter', 4],
      ['duplicate_custom_id', 5],
    ]);
  });

  it('refuses a method, a url, a body and a model the batch does not take', () => {
    const text = [
      line('a', { method: 'GET' }),
      line('b', { url: '/v1/embeddings' }),
      line('c', { body: [] }),
      line('d'),
      line('e', { body: { model: 'other' } }),
    ].join('\n');
    const v = validateInput(text, RULES);
    expect(!v.ok && v.errors.map((e) => e.code)).toEqual([
      'invalid_method',
      'invalid_url',
      'invalid_body',
      'mismatched_model',
    ]);
  });

  it('enforces the line and byte limits, and an empty file', () => {
    const six = Array.from({ length: 6 }, (_, i) => line(`r${i}`)).join('\n');
    expect(validateInput(six, RULES)).toMatchObject({ ok: false, errors: [{ code: 'too_many_requests', line: null }] });
    const big = line('a', { body: { model: 'm', pad: 'x'.repeat(10_000) } });
    expect(validateInput(big, RULES)).toMatchObject({ ok: false, errors: [{ code: 'file_too_large' }] });
    expect(validateInput('\n\n', RULES)).toMatchObject({ ok: false, errors: [{ code: 'empty_file' }] });
  });

  it('reports at most 100 errors, then how many more', () => {
    const text = Array.from({ length: 150 }, () => 'x').join('\n');
    const v = validateInput(text, { ...RULES, limits: { ...RULES.limits, maxLines: 1000 } });
    expect(!v.ok && v.errors.length).toBe(101);
    expect(!v.ok && v.errors.at(-1)).toMatchObject({
      code: 'too_many_errors',
      message: '50 more lines have errors too.',
    });
  });
});

describe('parseMultipart', () => {
  it('reads the fields and the file of an SDK upload', () => {
    const body =
      '--XyZ\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nbatch\r\n' +
      '--XyZ\r\nContent-Disposition: form-data; name="file"; filename="in.jsonl"\r\nContent-Type: application/octet-stream\r\n\r\n' +
      '{"a":1}\n{"b":2}\n\r\n--XyZ--\r\n';
    expect(parseMultipart('multipart/form-data; boundary=XyZ', body)).toEqual({
      fields: { purpose: 'batch' },
      file: { field: 'file', filename: 'in.jsonl', content: '{"a":1}\n{"b":2}\n' },
    });
  });

  it('says what is wrong with a broken body', () => {
    expect(parseMultipart('multipart/form-data', '')).toEqual({ error: expect.stringContaining('no boundary') });
    expect(
      parseMultipart('multipart/form-data; boundary=b', '--b\r\nContent-Disposition: form-data; name="x"\r\n\r\nv'),
    ).toEqual({
      error: expect.stringContaining('closing boundary'),
    });
  });
});

describe('shuffled', () => {
  it('is a permutation, the same for the same seed, another for another seed', () => {
    const a = shuffled(50, 7);
    expect([...a].sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(shuffled(50, 7)).toEqual(a);
    expect(shuffled(50, 8)).not.toEqual(a);
    expect(a).not.toEqual([...a].sort((x, y) => x - y));
  });
});

describe('BatchStore', () => {
  it('pages files newest first after a cursor, per scope, and counts them', () => {
    const store = new BatchStore();
    for (const id of ['f1', 'f2', 'f3'])
      store.putFile({
        id,
        scope: 's',
        filename: `${id}.jsonl`,
        purpose: 'batch',
        bytes: 1,
        createdAt: 1,
        content: 'x',
      });
    store.putFile({
      id: 'g1',
      scope: 't',
      filename: 'g.jsonl',
      purpose: 'batch',
      bytes: 1,
      createdAt: 1,
      content: 'x',
    });
    const first = store.listFiles('s', { limit: 2, order: 'desc' });
    expect(first).toMatchObject({ hasMore: true });
    expect('data' in first && first.data.map((f) => f.id)).toEqual(['f3', 'f2']);
    const rest = store.listFiles('s', { limit: 2, order: 'desc', after: 'f2' });
    expect('data' in rest && rest.data.map((f) => f.id)).toEqual(['f1']);
    expect(store.listFiles('s', { limit: 2, order: 'desc', after: 'nope' })).toEqual({ unknownAfter: true });
    expect(store.filesIn('s')).toBe(3);
    expect(store.file('g1', 's')).toBeUndefined();
    expect(store.deleteFile('f1', 's')).toBe(true);
    expect(store.filesIn('s')).toBe(2);
  });
});

describe('windowSeconds', () => {
  it('reads 24h, 90m, 7d, 3600s and nothing else', () => {
    expect([windowSeconds('24h'), windowSeconds('90m'), windowSeconds('7d'), windowSeconds('3600s')]).toEqual([
      86_400, 5400, 604_800, 3600,
    ]);
    for (const bad of ['', '24', 'h', '0h', '1.5h', '24 h']) expect(windowSeconds(bad), bad).toBeUndefined();
  });
});
