/**
 * The client side of the OpenAI wire: `--seed` / `--parameters-random-seed` are the completions `seed` for the openai
 * and azure-openai kinds (they were refused, exit 2), and an embedding that comes back base64 (what servers answer
 * the openai SDK's default request with) is decoded rather than refused.
 */
import { describe, expect, it } from 'vitest';
import { parseOpenAiEmbedResponse } from '../../profiles/openai/client/embed.js';
import { useServer } from '../helpers/server-fixture.js';
import { runInProcess } from '../helpers/run-cli.js';

const fixture = useServer();

describe('--seed on the OpenAI wire', () => {
  const cases = [
    ['openai', ['complete', '-m', 'gpt-3.5-turbo-instruct', '--no-stream', '-t', '1', '--max-tokens', '20', '--seed']],
    [
      'azure-openai',
      [
        'deployment',
        'text-generate',
        '--id-or-name',
        'gpt-35-turbo-instruct',
        '--input',
        'Rivers carry',
        '--parameters-temperature',
        '1',
        '--parameters-max-new-tokens',
        '20',
        '--parameters-random-seed',
      ],
    ],
  ] as const;

  it.each(cases)('%s: the same seed gives the same text, sent as "seed"', async (kind, args) => {
    const run = (seed: number) =>
      runInProcess(
        [
          '--provider',
          kind,
          '--url',
          fixture.server.url,
          ...args,
          String(seed),
          ...(kind === 'openai' ? ['Rivers carry'] : []),
        ],
        { env: fixture.home.env },
      );
    const a = await run(7);
    expect(a.exitCode, a.stderr).toBe(0);
    const b = await run(7);
    expect(b.stdout).toBe(a.stdout);
    const others = new Set<string>();
    for (const seed of [1, 2, 3]) others.add((await run(seed)).stdout);
    expect([...others].some((o) => o !== a.stdout)).toBe(true);
    const sent = fixture.server.requests
      .filter((r) => r.path.endsWith('/completions'))
      .map((r) => (r.json as { seed?: number }).seed);
    expect(sent).toEqual([7, 7, 1, 2, 3]);
  });
});

describe('base64 embeddings', () => {
  it('are decoded as little-endian float32', () => {
    const vector = [0.5, -0.25, 0.125];
    const bytes = Buffer.alloc(12);
    vector.forEach((x, i) => bytes.writeFloatLE(x, i * 4));
    const answer = parseOpenAiEmbedResponse(
      {
        data: [{ index: 0, object: 'embedding', embedding: bytes.toString('base64') }],
        model: 'm',
        usage: { prompt_tokens: 1 },
      },
      ['a'],
    );
    expect(answer.embeddings[0]!.embedding).toEqual(vector);
  });

  it('that are not base64 of float32 are an unexpected answer', () => {
    expect(() => parseOpenAiEmbedResponse({ data: [{ index: 0, embedding: 'not base64!' }] }, ['a'])).toThrow(
      'data[0] has no "embedding" (an array of numbers, or base64)',
    );
    expect(() => parseOpenAiEmbedResponse({ data: [{ index: 0, embedding: 'AAA=' }] }, ['a'])).toThrow(
      /has no "embedding"/,
    );
  });
});
