import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { ZodType } from 'zod';
import { startServer, type RunningServer } from '../../src/emulator/core/index.js';
import { alephAlphaProtocol } from '../../profiles/aleph-alpha/server/index.js';
import { alephAlphaTasksProtocol } from '../../profiles/aleph-alpha/server/tasks.js';
import { docxText } from '../../profiles/aleph-alpha/server/docx.js';
import { alephAlphaErrorSchema } from '../contract/aleph-alpha-schemas.js';
import {
  ALEPH_ALPHA_TASK_REQUEST_SCHEMAS,
  alephAlphaEvaluationResponseSchema,
  alephAlphaExplanationResponseSchema,
  alephAlphaQaResponseSchema,
  alephAlphaSummarizationResponseSchema,
} from '../contract/aleph-alpha-task-schemas.js';
import { makeDocx, TINY_PNG_BASE64, zip } from '../helpers/aleph-alpha-task-fixtures.js';

let server: RunningServer;
let secured: RunningServer;
beforeAll(async () => {
  server = await startServer({ protocols: [alephAlphaProtocol, alephAlphaTasksProtocol] });
  secured = await startServer({ protocols: [alephAlphaTasksProtocol], requireAuth: true, apiKeys: ['aa-token'] });
});
afterAll(async () => {
  await server.close();
  await secured.close();
});
afterEach(() => {
  server.faults.length = 0;
});

type TaskPath = keyof typeof ALEPH_ALPHA_TASK_REQUEST_SCHEMAS;
const RESPONSES: Record<TaskPath, ZodType> = {
  '/evaluate': alephAlphaEvaluationResponseSchema,
  '/explain': alephAlphaExplanationResponseSchema,
  '/qa': alephAlphaQaResponseSchema,
  '/summarize': alephAlphaSummarizationResponseSchema,
};

function post(
  path: string,
  body: unknown,
  opts: { query?: string; headers?: Record<string, string>; on?: RunningServer } = {},
): Promise<Response> {
  return fetch(`${(opts.on ?? server).url}${path}${opts.query ?? ''}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...opts.headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** A valid request (checked against the contract first) and its 200 answer (checked strictly too). */
async function task<T = Record<string, unknown>>(
  path: TaskPath,
  body: Record<string, unknown>,
  query = '',
): Promise<T> {
  const request = ALEPH_ALPHA_TASK_REQUEST_SCHEMAS[path].safeParse(body);
  expect(request.success, request.success ? '' : JSON.stringify(request.error.issues)).toBe(true);
  const res = await post(path, body, { query });
  const json = (await res.json()) as unknown;
  expect(res.status, JSON.stringify(json)).toBe(200);
  expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  const answer = RESPONSES[path].safeParse(json);
  expect(answer.success, answer.success ? '' : JSON.stringify(answer.error.issues)).toBe(true);
  return json as T;
}

async function expectError(res: Response, status: number, code: string, message?: RegExp | string): Promise<void> {
  expect(res.status).toBe(status);
  const body = alephAlphaErrorSchema.parse(await res.json());
  expect(body.code).toBe(code);
  if (typeof message === 'string') expect(body.error).toBe(message);
  else if (message) expect(body.error).toMatch(message);
}

interface Evaluation {
  result: {
    log_probability: number;
    log_perplexity: number;
    log_perplexity_per_token: number | null;
    correct_greedy: boolean;
    token_count: number;
    character_count: number;
    completion: string;
  };
  num_tokens_prompt_total: number;
}

async function greedyCompletion(prompt: string, maximum_tokens: number): Promise<string> {
  const res = await post('/complete', { model: 'luminous-base', prompt, maximum_tokens, temperature: 0 });
  return ((await res.json()) as { completions: Array<{ completion: string }> }).completions[0]!.completion;
}

describe('POST /evaluate', () => {
  test('the text /complete writes greedily is correct_greedy, scores high, and is what `completion` shows', async () => {
    const greedy = await greedyCompletion('An apple a day', 6);
    const e = await task<Evaluation>('/evaluate', {
      model: 'luminous-base',
      prompt: 'An apple a day',
      completion_expected: greedy,
    });
    expect(e.result.correct_greedy).toBe(true);
    expect(e.result.completion).toBe(greedy);
    const other = await task<Evaluation>('/evaluate', {
      model: 'luminous-base',
      prompt: 'An apple a day',
      completion_expected: ' keeps the doctor away.',
    });
    expect(other.result.correct_greedy).toBe(false);
    expect(other.result.completion).not.toBe(' keeps the doctor away.');
    expect(e.result.log_perplexity_per_token!).toBeLessThan(other.result.log_perplexity_per_token!);
  });

  test('a prefix of the greedy text is correct_greedy too; a text that leaves it is not', async () => {
    const greedy = await greedyCompletion('Rivers and lakes', 8);
    const half = greedy.slice(0, Math.ceil(greedy.length / 2));
    expect(
      (
        await task<Evaluation>('/evaluate', {
          model: 'luminous-base',
          prompt: 'Rivers and lakes',
          completion_expected: half,
        })
      ).result.correct_greedy,
    ).toBe(true);
    expect(
      (
        await task<Evaluation>('/evaluate', {
          model: 'luminous-base',
          prompt: 'Rivers and lakes',
          completion_expected: `${half}zzz`,
        })
      ).result.correct_greedy,
    ).toBe(false);
  });

  test('metrics fit together: perplexity is minus the log probability, per token and per character; counts', async () => {
    const expected = ' keeps the doctor away.';
    const e = await task<Evaluation>('/evaluate', {
      model: 'luminous-base',
      prompt: 'An apple a day',
      completion_expected: expected,
    });
    const r = e.result as Evaluation['result'] & { log_perplexity_per_character: number };
    expect(r.log_probability).toBeLessThan(0);
    expect(r.log_perplexity).toBeCloseTo(-r.log_probability, 12);
    expect(r.token_count).toBe(5);
    expect(r.character_count).toBe(expected.length);
    expect(r.log_perplexity_per_token).toBeCloseTo(r.log_perplexity / 5, 12);
    expect(r.log_perplexity_per_character).toBeCloseTo(r.log_perplexity / expected.length, 12);
    expect(e.num_tokens_prompt_total).toBe(4 + 5);
  });

  test('deterministic: the same request, the same answer', async () => {
    const body = { model: 'luminous-base', prompt: 'Tell me about rivers', completion_expected: ' Rivers flow.' };
    expect(await task('/evaluate', body)).toEqual(await task('/evaluate', body));
  });

  test('an empty expected completion: nothing to score', async () => {
    const e = await task<Evaluation>('/evaluate', { model: 'luminous-base', prompt: 'Hi', completion_expected: '' });
    expect(e.result).toEqual({
      log_probability: 0,
      log_perplexity: 0,
      log_perplexity_per_token: null,
      log_perplexity_per_character: null,
      correct_greedy: true,
      token_count: 0,
      character_count: 0,
      completion: '',
    });
  });

  test('images count 144 tokens each; token ids are read as the text they stand for', async () => {
    const text = await task<Evaluation>('/evaluate', {
      model: 'luminous-base',
      prompt: 'An apple',
      completion_expected: ' a day',
    });
    const mixed = await task<Evaluation>('/evaluate', {
      model: 'luminous-base',
      prompt: [
        { type: 'image', data: TINY_PNG_BASE64 },
        { type: 'token_ids', data: [2127] },
        { type: 'text', data: ' apple' },
      ],
      completion_expected: ' a day',
    });
    expect(mixed.num_tokens_prompt_total).toBe(text.num_tokens_prompt_total + 144);
    expect(mixed.result).toEqual(text.result);
  });
});

interface Explanations {
  explanations: Array<{
    target: string;
    items: Array<{
      type: string;
      scores: Array<{ start?: number; length?: number; score: number; rect?: object } | number>;
    }>;
  }>;
}

const PROMPT = 'An apple a day keeps the doctor away. Apples are healthy.\n\nDoctors like apples too.';

describe('POST /explain', () => {
  async function explain(extra: Record<string, unknown>, prompt: unknown = PROMPT): Promise<Explanations> {
    return task<Explanations>('/explain', {
      model: 'luminous-base',
      prompt,
      target: ' Apples keep doctors away.',
      ...extra,
    });
  }
  const spansOf = (e: Explanations, i = 0) =>
    e.explanations[0]!.items[i]!.scores.map((s) =>
      PROMPT.slice((s as { start: number }).start, (s as { start: number }).start + (s as { length: number }).length),
    );

  test.each<[string, Record<string, unknown>, string[]]>([
    [
      'paragraph',
      { prompt_granularity: { type: 'paragraph' } },
      ['An apple a day keeps the doctor away. Apples are healthy.', 'Doctors like apples too.'],
    ],
    [
      'sentence',
      { prompt_granularity: { type: 'sentence' } },
      ['An apple a day keeps the doctor away.', 'Apples are healthy.', 'Doctors like apples too.'],
    ],
    [
      'custom',
      { prompt_granularity: { type: 'custom', delimiter: '.' } },
      ['An apple a day keeps the doctor away', 'Apples are healthy', 'Doctors like apples too'],
    ],
  ])('%s granularity scores those pieces of the prompt', async (_g, extra, pieces) => {
    expect(spansOf(await explain(extra))).toEqual(pieces);
  });

  test('word granularity: one score per word; token granularity: one per token of the real tokenizer, covering the text', async () => {
    expect(spansOf(await explain({ prompt_granularity: { type: 'word' } }))).toEqual(PROMPT.split(/\s+/));
    const tokens = spansOf(await explain({ prompt_granularity: { type: 'token' } }));
    expect(tokens.join('')).toBe(PROMPT);
    expect(tokens.slice(0, 3)).toEqual(['An', ' apple', ' a']);
  });

  test('without a granularity the one closest to 30 pieces is chosen', async () => {
    const e = await explain({});
    const count = e.explanations[0]!.items[0]!.scores.length;
    const counts = await Promise.all(
      ['token', 'word', 'sentence', 'paragraph'].map(
        async (type) => (await explain({ prompt_granularity: { type } })).explanations[0]!.items[0]!.scores.length,
      ),
    );
    expect(counts).toContain(count);
    expect(Math.abs(count - 30)).toBe(Math.min(...counts.map((c) => Math.abs(c - 30))));
  });

  test("pieces that share the target's words score higher than the others", async () => {
    const e = await explain({ prompt_granularity: { type: 'sentence' } });
    const [first, second, third] = e.explanations[0]!.items[0]!.scores.map((s) => (s as { score: number }).score);
    // "apple… doctor away" shares three of the target's four words, "Apples are healthy" one.
    expect(first!).toBeGreaterThan(second!);
    expect(third!).toBeGreaterThan(second!);
  });

  test('one item per prompt item, in order, then the target: image tiles follow the granularity, token ids one score each', async () => {
    const prompt = [
      { type: 'image', data: TINY_PNG_BASE64 },
      { type: 'text', data: 'A picture of' },
      { type: 'token_ids', data: [2127, 24149] },
    ];
    for (const [type, tiles] of [
      ['token', 144],
      ['word', 36],
      ['sentence', 9],
      ['paragraph', 1],
    ] as const) {
      const e = await explain({ prompt_granularity: { type } }, prompt);
      const items = e.explanations[0]!.items;
      expect(items.map((i) => i.type)).toEqual(['image', 'text', 'token_ids', 'target']);
      expect(items[0]!.scores).toHaveLength(tiles);
      expect(items[2]!.scores).toHaveLength(2);
      expect(items[3]!.scores).toEqual([]);
    }
    const tiles = (await explain({ prompt_granularity: { type: 'sentence' } }, prompt)).explanations[0]!.items[0]!
      .scores as Array<{ rect: object }>;
    expect(tiles[4]!.rect).toEqual({ top: 1 / 3, left: 1 / 3, width: 1 / 3, height: 1 / 3 });
  });

  test('target granularity token: one explanation per target token, each seeing the target before it', async () => {
    const e = await explain({ target_granularity: 'token', prompt_granularity: { type: 'word' } });
    // cl100k cuts " Apples" in two.
    expect(e.explanations.map((x) => x.target)).toEqual([' App', 'les', ' keep', ' doctors', ' away', '.']);
    expect(e.explanations[0]!.items[1]!.scores).toEqual([]);
    const target = ' Apples keep doctors away.';
    const before = e.explanations[3]!.items[1]!.scores.map((s) =>
      target.slice((s as { start: number }).start, (s as { start: number }).start + (s as { length: number }).length),
    );
    expect(before).toEqual(['Apples', 'keep']);
  });

  test('postprocessing: absolute and square of the plain scores; normalize stretches them onto 0…1', async () => {
    const scores = async (extra: Record<string, unknown>) =>
      (await explain({ prompt_granularity: { type: 'word' }, ...extra })).explanations[0]!.items[0]!.scores.map(
        (s) => (s as { score: number }).score,
      );
    const none = await scores({});
    expect(none.some((s) => s < 0)).toBe(true);
    const absolute = await scores({ postprocessing: 'absolute' });
    absolute.forEach((s, i) => expect(s).toBeCloseTo(Math.abs(none[i]!), 5));
    const square = await scores({ postprocessing: 'square' });
    square.forEach((s, i) => expect(s).toBeCloseTo(none[i]! ** 2, 5));
    const normalized = await scores({ normalize: true });
    expect(Math.min(...normalized)).toBe(0);
    expect(Math.max(...normalized)).toBe(1);
    const order = (xs: number[]) => xs.map((_, i) => i).sort((a, b) => xs[a]! - xs[b]!);
    expect(order(normalized)).toEqual(order(none));
  });

  test("a null target explains the model's own greedy completion", async () => {
    const e = await task<Explanations>('/explain', { model: 'luminous-base', prompt: 'An apple a day', target: null });
    expect(e.explanations[0]!.target).toBe(await greedyCompletion('An apple a day', 20));
  });

  test('deterministic: the same request, the same answer', async () => {
    expect(await explain({ target_granularity: 'token' })).toEqual(await explain({ target_granularity: 'token' }));
  });
});

describe('POST /qa', () => {
  test("answers come from sentences sharing the query's words, best first, with their evidence", async () => {
    const answer = await task<{ answers: Array<{ answer: string; score: number; evidence: string }> }>('/qa', {
      query: 'Who likes Pizza?',
      documents: [
        { text: 'Andreas likes Pizza. Ben likes soup. The sky is blue.' },
        { text: 'Pizza comes from Naples.' },
      ],
    });
    expect(answer.answers).toEqual([
      { answer: 'Andreas', score: 1, evidence: 'Andreas likes Pizza.' },
      { answer: 'Ben', score: 0.5, evidence: 'Ben likes soup.' },
      { answer: 'comes from Naples', score: 0.5, evidence: 'Pizza comes from Naples.' },
    ]);
  });

  test('max_answers keeps the best ones; no shared word, no answer', async () => {
    const body = { query: 'Who likes Pizza?', documents: [{ text: 'Andreas likes Pizza. Ben likes soup.' }] };
    expect((await task<{ answers: unknown[] }>('/qa', { ...body, max_answers: 1 })).answers).toHaveLength(1);
    expect(
      (
        await task<{ answers: unknown[] }>('/qa', {
          query: 'Where is Rome?',
          documents: [{ text: 'Andreas likes Pizza.' }],
        })
      ).answers,
    ).toEqual([]);
  });

  test('a Word document is read: its paragraphs and runs become text', async () => {
    const docx = makeDocx(['Andreas likes |Pizza & pasta.', 'Ben likes soup.']).toString('base64');
    const answer = await task<{ answers: Array<{ answer: string; evidence: string }> }>('/qa', {
      query: 'Who likes pasta?',
      documents: [{ docx }],
    });
    expect(answer.answers[0]).toMatchObject({ answer: 'Andreas', evidence: 'Andreas likes Pizza & pasta.' });
  });

  test('a prompt document is read as its text', async () => {
    const answer = await task<{ answers: Array<{ answer: string }> }>('/qa', {
      query: 'Who likes Pizza?',
      documents: [{ prompt: [{ type: 'text', data: 'Andreas likes Pizza.' }] }],
    });
    expect(answer.answers[0]!.answer).toBe('Andreas');
  });

  test('bytes that are not a Word document are a 400 naming the document', async () => {
    const res = await post('/qa', {
      query: 'Who?',
      documents: [{ text: 'x' }, { docx: Buffer.from('not a zip').toString('base64') }],
    });
    await expectError(res, 400, 'BAD_REQUEST', "Invalid request: 'documents[1].docx' is not a Word document (.docx)");
  });
});

describe('POST /summarize', () => {
  test.each<[string, string, string]>([
    [
      'one paragraph: its first two sentences',
      'Rivers carry water. They shape valleys.\nFish live in them. Birds too.',
      'Rivers carry water. They shape valleys.',
    ],
    [
      'several paragraphs: the first sentence of each, as a list',
      'Rivers carry water. They shape valleys.\n\nMountains are tall. Snow sits on top.',
      '- Rivers carry water.\n- Mountains are tall.',
    ],
    ['a text without a full stop is its own summary', 'just a few words', 'just a few words'],
  ])('%s', async (_name, text, summary) => {
    expect((await task<{ summary: string }>('/summarize', { document: { text } })).summary).toBe(summary);
  });

  test('a Word document is summarized from its text', async () => {
    const docx = makeDocx(['Rivers carry water.', 'Mountains are tall.']).toString('base64');
    expect((await task<{ summary: string }>('/summarize', { document: { docx } })).summary).toBe(
      '- Rivers carry water.\n- Mountains are tall.',
    );
  });

  test('a document without text is a 400', async () => {
    await expectError(
      await post('/summarize', { document: { text: '  \n ' } }),
      400,
      'BAD_REQUEST',
      'Invalid request: the document holds no text to summarize',
    );
  });
});

describe("checks before any work, in the service's error shape", () => {
  test.each<[string, string, unknown, string]>([
    ['a body that is not JSON', '/evaluate', '{"model": ', 'Invalid request: the request body is not valid JSON'],
    ['an empty body', '/qa', '', 'Invalid request: the request body is empty'],
    ['a body that is not an object', '/summarize', '[1]', 'Invalid request: the request body must be a JSON object'],
    [
      'missing required fields',
      '/evaluate',
      { prompt: 'x' },
      "Invalid request: 'model' is required; 'completion_expected' is required",
    ],
    [
      'an unknown field',
      '/evaluate',
      { model: 'luminous-base', prompt: 'x', completion_expected: 'y', expected: 'y' },
      "Invalid request: unknown field 'expected'",
    ],
    [
      'a wrong type',
      '/explain',
      { model: 'luminous-base', prompt: 'x', target: 3 },
      "Invalid request: 'target' must be of type string",
    ],
    [
      'target is required even though it may be null',
      '/explain',
      { model: 'luminous-base', prompt: 'x' },
      "Invalid request: 'target' is required",
    ],
    [
      'a bad enum',
      '/explain',
      { model: 'luminous-base', prompt: 'x', target: 'y', postprocessing: 'cube' },
      'Invalid request: \'postprocessing\' must be one of: "none", "absolute", "square"',
    ],
    [
      'custom granularity without a delimiter',
      '/explain',
      { model: 'luminous-base', prompt: 'x', target: 'y', prompt_granularity: { type: 'custom' } },
      "Invalid request: 'prompt_granularity.delimiter' is required when 'prompt_granularity.type' is \"custom\"",
    ],
    [
      'a bad prompt item',
      '/explain',
      { model: 'luminous-base', prompt: [{ type: 'image', data: 'abc' }], target: 'y' },
      "Invalid request: 'prompt[0].data' must be the image as base64",
    ],
    [
      'an unknown token id',
      '/evaluate',
      { model: 'luminous-base', prompt: [{ type: 'token_ids', data: [999999999] }], completion_expected: 'y' },
      "Invalid request: 'prompt[0].data' holds a token id the model does not know",
    ],
    [
      'max_answers above 200',
      '/qa',
      { query: 'q', documents: [{ text: 'x' }], max_answers: 201 },
      "Invalid request: 'max_answers' must be at most 200",
    ],
    [
      'max_answers below 1',
      '/qa',
      { query: 'q', documents: [{ text: 'x' }], max_answers: 0 },
      "Invalid request: 'max_answers' must be at least 1",
    ],
    [
      'no documents',
      '/qa',
      { query: 'q', documents: [] },
      "Invalid request: 'documents' must hold at least one document",
    ],
    [
      'a document of two kinds',
      '/qa',
      { query: 'q', documents: [{ text: 'x', docx: 'UEsDBA==' }] },
      "Invalid request: 'documents[0]' must have exactly one of the fields docx, text, prompt",
    ],
    ['an empty query', '/qa', { query: '', documents: [{ text: 'x' }] }, "Invalid request: 'query' must not be empty"],
    [
      'a model on summarize',
      '/summarize',
      { model: 'luminous-base', document: { text: 'x' } },
      "Invalid request: unknown field 'model'",
    ],
    [
      'a bad hosting',
      '/summarize',
      { hosting: 'anywhere', document: { text: 'x' } },
      'Invalid request: \'hosting\' must be one of: "aleph-alpha"',
    ],
  ])('%s → 400', async (_name, path, body, message) => {
    await expectError(await post(path, body), 400, 'BAD_REQUEST', message);
  });

  test("a prompt and target beyond the model's context are a 400", async () => {
    const long = 'word '.repeat(2100);
    await expectError(
      await post('/evaluate', { model: 'luminous-base', prompt: long, completion_expected: 'x' }),
      400,
      'BAD_REQUEST',
      /exceeds the 2048 tokens of luminous-base/,
    );
  });

  test('an unknown model is a 404 UNKNOWN_MODEL', async () => {
    await expectError(
      await post('/explain', { model: 'gpt-4', prompt: 'x', target: 'y' }),
      404,
      'UNKNOWN_MODEL',
      /^Unknown model 'gpt-4'/,
    );
  });

  test('nice must be true or false', async () => {
    await expectError(
      await post('/summarize', { document: { text: 'x' } }, { query: '?nice=yes' }),
      400,
      'BAD_REQUEST',
      "Invalid query parameter 'nice': expected true or false, got 'yes'",
    );
    await task('/summarize', { document: { text: 'x.' } }, '?nice=true');
  });

  test('without a valid bearer token: 401 UNAUTHENTICATED; with one: served', async () => {
    for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: 'Basic aa-token' }] as Array<
      Record<string, string>
    >) {
      await expectError(
        await post('/summarize', { document: { text: 'x' } }, { on: secured, headers }),
        401,
        'UNAUTHENTICATED',
      );
    }
    const res = await post(
      '/summarize',
      { document: { text: 'x.' } },
      { on: secured, headers: { authorization: 'Bearer aa-token' } },
    );
    expect(res.status).toBe(200);
  });

  test('a fault switch answers a request that would have been served, not a bad one', async () => {
    server.faults.push({ kind: 'status', status: 503, retryAfter: '1' });
    await expectError(await post('/qa', { query: '', documents: [{ text: 'x' }] }), 400, 'BAD_REQUEST');
    const res = await post('/qa', { query: 'q', documents: [{ text: 'x' }] });
    expect(res.headers.get('retry-after')).toBe('1');
    await expectError(res, 503, 'QUEUE_FULL');
    expect((await post('/qa', { query: 'q', documents: [{ text: 'x' }] })).status).toBe(200);
  });

  test("GET on a task path is a 405 in the service's shape", async () => {
    const res = await fetch(`${server.url}/evaluate`);
    await expectError(res, 405, 'METHOD_NOT_ALLOWED');
    expect(res.headers.get('allow')).toBe('POST');
  });
});

describe('Word documents', () => {
  test('stored and deflated entries, entities, tabs and breaks', async () => {
    const { deflateRawSync } = await import('node:zlib');
    const xml =
      '<w:document><w:body><w:p><w:r><w:t>A &amp; B</w:t><w:tab/><w:t xml:space="preserve"> C&#x21;</w:t><w:br/><w:t>D</w:t></w:r></w:p><w:p><w:r><w:t>E</w:t></w:r></w:p></w:body></w:document>';
    const budget = { remaining: 1024 };
    expect(await docxText(zip({ 'word/document.xml': xml }), budget)).toEqual({ ok: true, text: 'A & B\t C!\nD\n\nE' });
    // A deflated entry: swap the stored data for deflated bytes and fix the sizes and method.
    const deflated = deflateRawSync(Buffer.from(xml));
    const archive = zip({ 'word/document.xml': deflated });
    archive.writeUInt16LE(8, 8);
    const central = archive.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    archive.writeUInt16LE(8, central + 10);
    expect(await docxText(archive, budget)).toEqual({ ok: true, text: 'A & B\t C!\nD\n\nE' });
    // Each document takes its share of what one request may unpack.
    expect(budget.remaining).toBe(1024 - 2 * xml.length);
  });

  test.each<[string, Buffer]>([
    ['not a zip', Buffer.from('hello')],
    ['a zip without word/document.xml', zip({ 'other.xml': '<x/>' })],
    ['a truncated zip', makeDocx(['x']).subarray(0, 40)],
  ])('%s is not a Word document', async (_name, bytes) => {
    expect(await docxText(bytes, { remaining: 1024 })).toEqual({ ok: false, reason: 'not-a-document' });
  });
});
