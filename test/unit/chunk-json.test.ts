/** chunkJson (profiles/server-common/openai-chat.ts): the same bytes as JSON.stringify of the whole chunk object. */
import { describe, expect, it } from 'vitest';
import { chunkJson } from '../../profiles/server-common/openai-chat.js';

const whole = (envelope: Record<string, unknown>, choices: unknown, usage?: unknown) =>
  JSON.stringify({ ...envelope, object: 'chat.completion.chunk', choices, ...(usage !== undefined ? { usage } : {}) });

describe('chunkJson', () => {
  const envelopes: Array<Record<string, unknown>> = [
    { id: 'chatcmpl-1', created: 1733140000, model: 'gpt-4o' },
    { id: 'chatcmpl-2', created: 1, model: undefined },
    { id: 'x"\\\u2028é', created: 0, model: 'm', system_fingerprint: null },
    {},
    { object: 'overridden', id: 'a' },
    // Keys the fast path does not take: the whole object is serialised as before.
    { id: 'b', choices: 'early', usage: 'early' },
  ];
  const choices: unknown[] = [
    [],
    [{ index: 0, delta: { content: 'tok "q" \n' }, logprobs: null, finish_reason: null }],
    [
      {
        index: 1,
        delta: {},
        logprobs: null,
        finish_reason: 'stop',
        content_filter_results: { hate: { filtered: false } },
      },
    ],
  ];
  const usages: unknown[] = [undefined, null, { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 }];
  it('matches JSON.stringify for every envelope, choice list and usage', () => {
    for (const envelope of envelopes) {
      const chunk = chunkJson(envelope);
      for (const c of choices) for (const u of usages) expect(chunk(c, u)).toBe(whole(envelope, c, u));
    }
  });
});
