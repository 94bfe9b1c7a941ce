import { describe, expect, test } from 'vitest';
import type { ExplainRequest, Explanation } from '../../src/contract/adapter.js';
import { loadTaskOperation, providersWith } from '../../src/flows/tasks.js';
import { PROVIDER_KINDS } from '../../src/contract/profile.js';
import { alephAlphaEvaluate, perplexityOf, renderEvaluation } from '../../profiles/aleph-alpha/client/evaluate.js';
import { alephAlphaExplain } from '../../profiles/aleph-alpha/client/explain.js';
import { explanationLines, renderExplanations } from '../../profiles/aleph-alpha/client/explain-lines.js';
import { alephAlphaQa, renderAnswers } from '../../profiles/aleph-alpha/client/qa.js';
import { alephAlphaSummarize } from '../../profiles/aleph-alpha/client/summarize.js';
import { UsageError } from '../../src/contract/errors.js';
import { ALEPH_ALPHA_TASK_REQUEST_SCHEMAS } from '../contract/aleph-alpha-task-schemas.js';
import { testProfile } from '../helpers/profile.js';
import { TINY_PNG_BASE64 } from '../helpers/aleph-alpha-task-fixtures.js';

const profile = testProfile({ provider: 'aleph-alpha', url: 'https://api.aleph-alpha.com' });
const hosted = testProfile({
  provider: 'aleph-alpha',
  url: 'https://api.aleph-alpha.com',
  defaults: { hosting: 'aleph-alpha' },
});

function wire(spec: { url: string; body?: string; method: string; headers: Record<string, string> }) {
  const url = new URL(spec.url);
  const body = JSON.parse(spec.body ?? 'null') as unknown;
  const schema = ALEPH_ALPHA_TASK_REQUEST_SCHEMAS[url.pathname as keyof typeof ALEPH_ALPHA_TASK_REQUEST_SCHEMAS];
  const parsed = schema.safeParse(body);
  expect(parsed.success, parsed.success ? '' : JSON.stringify(parsed.error.issues)).toBe(true);
  expect(spec.method).toBe('POST');
  expect(spec.headers).toEqual({ 'content-type': 'application/json', accept: 'application/json' });
  return { path: url.pathname, query: url.search, body };
}

describe('the loader knows which providers have each task', () => {
  test.each(['evaluate', 'explain', 'qa', 'summarize'] as const)('%s: only aleph-alpha', async (task) => {
    expect(providersWith(task)).toEqual(['aleph-alpha']);
    for (const kind of PROVIDER_KINDS) {
      const op = await loadTaskOperation(task, kind);
      expect(op === undefined, `${task} on ${kind}`).toBe(kind !== 'aleph-alpha');
    }
  });
});

describe('wire requests, checked against the 1.16 schemas', () => {
  const items = [
    { type: 'image' as const, data: TINY_PNG_BASE64 },
    { type: 'text' as const, data: 'A picture of' },
  ];

  test.each<[string, () => ReturnType<typeof wire>, { path: string; query: string; body: unknown }]>([
    [
      'evaluate: model, prompt, completion_expected',
      () =>
        wire(
          alephAlphaEvaluate.buildRequest(
            { model: 'luminous-base', prompt: 'An apple a day', expected: ' keeps', nice: false },
            profile,
          ),
        ),
      {
        path: '/evaluate',
        query: '',
        body: { model: 'luminous-base', prompt: 'An apple a day', completion_expected: ' keeps' },
      },
    ],
    [
      'evaluate: a multimodal prompt, hosting from the profile, nice as a query parameter',
      () =>
        wire(
          alephAlphaEvaluate.buildRequest(
            { model: 'luminous-extended', prompt: items, expected: ' a cat', nice: true },
            hosted,
          ),
        ),
      {
        path: '/evaluate',
        query: '?nice=true',
        body: { model: 'luminous-extended', hosting: 'aleph-alpha', prompt: items, completion_expected: ' a cat' },
      },
    ],
    [
      'explain: only what was asked',
      () =>
        wire(
          alephAlphaExplain.buildRequest(
            { model: 'luminous-base', prompt: 'An apple', target: ' a day', nice: false },
            profile,
          ),
        ),
      { path: '/explain', query: '', body: { model: 'luminous-base', prompt: 'An apple', target: ' a day' } },
    ],
    [
      'explain: granularity, delimiter, target granularity, postprocessing, normalize',
      () =>
        wire(
          alephAlphaExplain.buildRequest(
            {
              model: 'luminous-base',
              prompt: 'a###b',
              target: 'c',
              granularity: 'custom',
              delimiter: '###',
              targetGranularity: 'token',
              postprocessing: 'square',
              normalize: false,
              nice: true,
            },
            profile,
          ),
        ),
      {
        path: '/explain',
        query: '?nice=true',
        body: {
          model: 'luminous-base',
          prompt: 'a###b',
          target: 'c',
          postprocessing: 'square',
          normalize: false,
          prompt_granularity: { type: 'custom', delimiter: '###' },
          target_granularity: 'token',
        },
      },
    ],
    [
      'qa: no model; documents in order; max_answers',
      () =>
        wire(
          alephAlphaQa.buildRequest(
            { query: 'Who?', documents: [{ text: 'A.' }, { docx: 'UEsDBA==' }], maxAnswers: 3, nice: false },
            hosted,
          ),
        ),
      {
        path: '/qa',
        query: '',
        body: {
          hosting: 'aleph-alpha',
          query: 'Who?',
          documents: [{ text: 'A.' }, { docx: 'UEsDBA==' }],
          max_answers: 3,
        },
      },
    ],
    [
      'summarize: no model, one document',
      () => wire(alephAlphaSummarize.buildRequest({ document: { text: 'Long text.' }, nice: false }, profile)),
      { path: '/summarize', query: '', body: { document: { text: 'Long text.' } } },
    ],
  ])('%s', (_name, build, expected) => {
    expect(build()).toEqual(expected);
  });

  test('a hosting other than "aleph-alpha" in the profile is a usage error', () => {
    const odd = testProfile({ provider: 'aleph-alpha', defaults: { hosting: 'anywhere' } });
    expect(() => alephAlphaSummarize.buildRequest({ document: { text: 'x' }, nice: false }, odd)).toThrow(UsageError);
    expect(() => alephAlphaSummarize.buildRequest({ document: { text: 'x' }, nice: false }, odd)).toThrow(
      /hosting "aleph-alpha" or none, got "anywhere"/,
    );
  });
});

describe("answers: the service's objects kept, model_id added from the request, unknown top-level fields dropped", () => {
  const metrics = {
    log_probability: -1.5,
    log_perplexity: 1.5,
    log_perplexity_per_token: 0.5,
    log_perplexity_per_character: 0.1,
    correct_greedy: true,
    token_count: 3,
    character_count: 15,
    completion: ' keeps the doctor',
  };

  test('evaluate', () => {
    const result = alephAlphaEvaluate.parseResponse(
      { model_version: '2022-04', result: metrics, num_tokens_prompt_total: 7, debug: 'x' },
      { model: 'luminous-base', prompt: 'p', expected: 'e', nice: false },
    );
    expect(result).toEqual({
      model_id: 'luminous-base',
      model_version: '2022-04',
      result: metrics,
      num_tokens_prompt_total: 7,
    });
    expect(Object.keys(result)).toEqual(['model_id', 'model_version', 'result', 'num_tokens_prompt_total']);
  });

  test('explain', () => {
    const explanations = [
      {
        target: ' a',
        items: [
          { type: 'text', scores: [{ start: 0, length: 2, score: 0.5 }] },
          { type: 'target', scores: [] },
        ],
      },
    ];
    const req: ExplainRequest = { model: 'luminous-base', prompt: 'An', target: ' a', nice: false };
    expect(alephAlphaExplain.parseResponse({ model_version: '2022-04', explanations }, req)).toEqual({
      model_id: 'luminous-base',
      model_version: '2022-04',
      explanations,
    });
  });

  test('qa and summarize have no model of their own', () => {
    const answers = [{ answer: 'Andreas', score: 0.99, evidence: 'Andreas likes pizza.' }];
    expect(
      alephAlphaQa.parseResponse({ model_version: '2021-12', answers }, { query: 'q', documents: [], nice: false }),
    ).toEqual({ model_version: '2021-12', answers });
    expect(alephAlphaSummarize.parseResponse({ summary: 'Short.' }, { document: { text: 'x' }, nice: false })).toEqual({
      summary: 'Short.',
    });
  });

  test.each<[string, () => unknown, RegExp]>([
    [
      'evaluate without result',
      () =>
        alephAlphaEvaluate.parseResponse(
          { model_version: 'x' },
          { model: 'm', prompt: 'p', expected: 'e', nice: false },
        ),
      /no "result" object/,
    ],
    [
      'explain without explanations',
      () => alephAlphaExplain.parseResponse([], { model: 'm', prompt: 'p', target: 't', nice: false }),
      /no "explanations" array/,
    ],
    [
      'explain with an item without scores',
      () =>
        alephAlphaExplain.parseResponse(
          { explanations: [{ target: 't', items: [{ type: 'text' }] }] },
          { model: 'm', prompt: 'p', target: 't', nice: false },
        ),
      /explanation 0, item 0 has no "type" and "scores"/,
    ],
    [
      'qa without answers',
      () => alephAlphaQa.parseResponse({ answer: 'x' }, { query: 'q', documents: [], nice: false }),
      /no "answers" array/,
    ],
    [
      'qa with an answer that is not text',
      () => alephAlphaQa.parseResponse({ answers: [{ answer: 3 }] }, { query: 'q', documents: [], nice: false }),
      /answer 0 has no "answer" string/,
    ],
    [
      'summarize without summary',
      () => alephAlphaSummarize.parseResponse({ summary: null }, { document: { text: 'x' }, nice: false }),
      /no "summary" string/,
    ],
  ])('a malformed answer is an error naming what is missing: %s', (_name, parse, message) => {
    expect(parse).toThrow(message);
  });
});

describe('text for people', () => {
  test('evaluate: log probability with its sizes, perplexity per token, correct greedy', () => {
    const text = renderEvaluation({
      model_id: 'luminous-base',
      result: {
        log_probability: -1.2281955,
        log_perplexity: 1.2281955,
        log_perplexity_per_token: 0.24563909,
        correct_greedy: true,
        token_count: 5,
        character_count: 23,
        completion: ' keeps',
      },
    });
    expect(text).toBe(
      [
        'log probability    -1.2282  (5 tokens, 23 characters)',
        'perplexity         1.2784  (per token)',
        'correct greedy     yes',
        '',
      ].join('\n'),
    );
  });

  test('evaluate: when greedy decoding differs, what it writes instead; missing metrics are n/a', () => {
    const text = renderEvaluation({
      model_id: 'm',
      result: { log_probability: null, correct_greedy: false, token_count: 1, completion: ' That busy' },
    });
    expect(text).toBe(
      [
        'log probability    n/a  (1 token)',
        'perplexity         n/a',
        'correct greedy     no',
        'greedy completion  " That busy"',
        '',
      ].join('\n'),
    );
  });

  test('perplexity comes from the total when the per-token figure is missing', () => {
    expect(perplexityOf({ log_perplexity: 2, token_count: 4 })).toBeCloseTo(Math.exp(0.5));
    expect(perplexityOf({ log_perplexity: 2, token_count: 0 })).toBeUndefined();
  });

  test('explain: one "score  span" line per piece, in prompt order, spans cut from the prompt and target', () => {
    const explanation: Explanation = {
      target: ' keeps',
      items: [
        { type: 'image', scores: [{ rect: { top: 0, left: 0, width: 0.5, height: 0.5 }, score: 0.25 }] },
        {
          type: 'text',
          scores: [
            { start: 0, length: 2, score: -0.0176 },
            { start: 2, length: 6, score: 0.398 },
          ],
        },
        { type: 'token_ids', scores: [0.1, 0.2] },
        { type: 'target', scores: [{ start: 0, length: 4, score: 1 }] },
      ],
    };
    const prompt = [
      { type: 'image' as const, data: TINY_PNG_BASE64 },
      { type: 'text' as const, data: 'An apple' },
      { type: 'token_ids' as const, data: [49222, 15] },
    ];
    expect(explanationLines(explanation, prompt, 'Then keeps')).toEqual([
      '  0.2500  image 1 [left 0.00, top 0.00, 0.50 × 0.50]',
      ' -0.0176  "An"',
      '  0.3980  " apple"',
      '  0.1000  token 49222',
      '  0.2000  token 15',
      '  1.0000  target "Then"',
    ]);
  });

  test('explain: several explanations (per target token) each get a heading; one needs none', () => {
    const one = (target: string): Explanation => ({
      target,
      items: [
        { type: 'text', scores: [{ start: 0, length: 5, score: 0.5 }] },
        { type: 'target', scores: [] },
      ],
    });
    expect(renderExplanations([one(' a')], 'Hello', ' a b')).toBe('  0.5000  "Hello"\n');
    expect(renderExplanations([one(' a'), one(' b')], 'Hello', ' a b')).toBe(
      'explanation of " a":\n  0.5000  "Hello"\n\nexplanation of " b":\n  0.5000  "Hello"\n',
    );
  });

  test('explain: text of a prompt string is the first item; escapes keep one line per span', () => {
    const explanation: Explanation = {
      target: 'x',
      items: [{ type: 'text', scores: [{ start: 0, length: 7, score: 0 }] }],
    };
    expect(explanationLines(explanation, 'Line 1\nLine 2', 'x')).toEqual(['  0.0000  "Line 1\\n"']);
  });

  test('qa: each answer with its score, then its evidence on one line', () => {
    expect(
      renderAnswers([
        { answer: 'Andreas', score: 0.9980973, evidence: 'Andreas likes\n  pizza.' },
        { answer: 'Ben', score: 0.5, evidence: '' },
      ]),
    ).toBe('Andreas  (score 0.9981)\n  evidence: Andreas likes pizza.\n\nBen  (score 0.5000)\n');
  });

  test('summarize: the summary and a newline; an empty one prints nothing', () => {
    expect(alephAlphaSummarize.renderText({ summary: 'Short.' }, { document: { text: 'x' }, nice: false })).toBe(
      'Short.\n',
    );
    expect(alephAlphaSummarize.renderText({ summary: '' }, { document: { text: 'x' }, nice: false })).toBe('');
  });
});
