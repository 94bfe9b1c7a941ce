import { describe, expect, it } from 'vitest';
import type { Explanation } from '../../src/contract/adapter.js';
import { renderExplanations } from '../../profiles/aleph-alpha/client/explain-lines.js';
import { renderGenerationSummary } from '../../src/output/generation-summary.js';
import { COLOUR_HEAT_MAP, heatScale, renderHeatMap, scoreRange } from '../../src/output/heat-map.js';
import { colourByLogprob, logprobLegend } from '../../src/output/logprob-colors.js';
import { cosineSimilarity, renderSimilarityMatrix, similarityMatrix } from '../../src/output/similarity-matrix.js';
import { stdoutColor } from '../../src/output/stdout-color.js';
import { renderTokenBoundaries, tokensAsText } from '../../src/output/token-boundaries.js';

const E = '\u001b[';
const SGR = /\u001b\[[0-9;]*m/;

describe('stdoutColor', () => {
  const ctx = (stdoutIsTTY: boolean, env: Record<string, string> = {}, color?: boolean) => ({
    env,
    terminal: { stdinIsTTY: true, stdoutIsTTY, stderrIsTTY: true, interactive: true, color: true },
    globals: color === undefined ? {} : { color },
  });
  it.each([
    { why: 'a colour terminal gets colour', c: ctx(true), on: true },
    { why: 'a pipe gets none', c: ctx(false), on: false },
    { why: 'FORCE_COLOR never puts escape codes into a piped stdout', c: ctx(false, { FORCE_COLOR: '1' }), on: false },
    { why: 'NO_COLOR turns it off on a terminal', c: ctx(true, { NO_COLOR: '1' }), on: false },
    { why: 'FORCE_COLOR=0 turns it off on a terminal', c: ctx(true, { FORCE_COLOR: '0' }), on: false },
    { why: '--no-color turns it off on a terminal', c: ctx(true, {}, false), on: false },
  ])('$why', ({ c, on }) => {
    expect(stdoutColor(c as unknown as Parameters<typeof stdoutColor>[0])).toBe(on);
  });
});

describe('token boundaries', () => {
  it('alternates two backgrounds over the tokens, then the count', () => {
    expect(renderTokenBoundaries(['Hello', ' world', '!'], 3, true)).toBe(
      `${E}30m${E}48;5;153mHello${E}49m${E}39m${E}30m${E}48;5;223m world${E}49m${E}39m${E}30m${E}48;5;153m!${E}49m${E}39m\n3 tokens\n`,
    );
  });

  it('closes the colour before a line break inside a token', () => {
    expect(renderTokenBoundaries(['a\nb'], 1, true)).toBe(
      `${E}30m${E}48;5;153ma${E}49m${E}39m\n${E}30m${E}48;5;153mb${E}49m${E}39m\n1 token\n`,
    );
  });

  it('without colour is the count alone, as a pipe gets it', () => {
    expect(renderTokenBoundaries(['Hello', ' world'], 2, false)).toBe('2\n');
  });

  it.each([
    {
      why: 'tokens that spell the text stay as they are',
      tokens: ['Hello', ' wor', 'ld'],
      text: 'Hello world',
      pieces: ['Hello', ' wor', 'ld'],
    },
    {
      why: 'byte-level BPE marks become a space and a line break',
      tokens: ['H', 'ello', 'Ġwor', 'ld', 'Ċ'],
      text: 'Hello world\n',
      pieces: ['H', 'ello', ' wor', 'ld', '\n'],
    },
    {
      why: "SentencePiece's added leading space is dropped",
      tokens: ['▁Hello', '▁world'],
      text: 'Hello world',
      pieces: ['Hello', ' world'],
    },
    {
      why: 'tokens that spell another text either way are shown as given',
      tokens: ['▁a', 'Ġb'],
      text: 'xy',
      pieces: ['▁a', 'Ġb'],
    },
  ])('$why', ({ tokens, text, pieces }) => {
    expect(tokensAsText(tokens, text)).toEqual(pieces);
  });
});

describe('log-probability colours', () => {
  const tokens = [
    { text: 'The', logprob: Math.log(0.95) },
    { text: '▁cat', logprob: Math.log(0.6) },
    { text: ' sat', logprob: Math.log(0.3) },
    { text: ' on', logprob: Math.log(0.1) },
    { text: ' mats', logprob: Math.log(0.01) },
    { text: '.' },
  ];

  it('colours each token by its probability band; a token without a log-probability prints plain', () => {
    expect(colourByLogprob('The cat sat on mats.', tokens, true)).toBe(
      `${E}38;5;34mThe${E}39m${E}38;5;142m cat${E}39m${E}38;5;178m sat${E}39m${E}38;5;208m on${E}39m${E}38;5;196m mats${E}39m.`,
    );
  });

  it('prints the rest plain from the first token that does not match the text', () => {
    expect(
      colourByLogprob(
        'The dog',
        [
          { text: 'The', logprob: 0 },
          { text: ' cat', logprob: 0 },
        ],
        true,
      ),
    ).toBe(`${E}38;5;34mThe${E}39m dog`);
  });

  it('without colour is the text itself', () => {
    expect(colourByLogprob('The cat sat on mats.', tokens, false)).toBe('The cat sat on mats.');
  });

  it('has a legend, coloured or plain', () => {
    expect(logprobLegend(true)).toBe(
      `token probability: ${E}38;5;34m■ ≥90%${E}39m ${E}38;5;142m■ ≥50%${E}39m ${E}38;5;178m■ ≥20%${E}39m ${E}38;5;208m■ ≥5%${E}39m ${E}38;5;196m■ <5%${E}39m\n`,
    );
    expect(logprobLegend(false)).toBe('token probability: ≥90% ≥50% ≥20% ≥5% <5%\n');
  });
});

describe('heat map', () => {
  const spans = [
    { start: 0, length: 2, score: 0 },
    { start: 3, length: 5, score: 1 },
    { start: 9, length: 3, score: 0.5 },
  ];
  const range = scoreRange([spans]);

  it('shades each span from pale to red by its score; text between spans is plain', () => {
    expect(renderHeatMap('An apple day', spans, range, true)).toBe(
      `${E}30m${E}48;5;230mAn${E}49m${E}39m ${E}30m${E}48;5;197mapple${E}49m${E}39m ${E}30m${E}48;5;215mday${E}49m${E}39m`,
    );
  });

  it('without colour is the text itself', () => {
    expect(renderHeatMap('An apple day', spans, range, false)).toBe('An apple day');
  });

  it('has a scale naming the lowest and highest score', () => {
    const steps = [230, 229, 222, 215, 209, 203, 197].map((bg) => `${E}30m${E}48;5;${bg}m ${E}49m${E}39m`).join('');
    expect(heatScale(range, true)).toBe(`${E}2mscore 0.0000 ${steps} 1.0000${E}22m`);
    expect(heatScale(range, false)).toBe('score 0.0000 … 1.0000');
  });

  it('explain on a colour terminal draws the prompt as a heat map; without colour the lines stay', () => {
    const explanation: Explanation = {
      target: ' x',
      items: [
        { type: 'text', scores: spans },
        { type: 'target', scores: [] },
      ],
    };
    const colored = renderExplanations([explanation], 'An apple day', ' x', COLOUR_HEAT_MAP);
    expect(colored).toBe(`${renderHeatMap('An apple day', spans, range, true)}\n${heatScale(range, true)}\n`);
    expect(renderExplanations([explanation], 'An apple day', ' x')).toBe(
      '  0.0000  "An"\n  1.0000  "apple"\n  0.5000  "day"\n',
    );
  });
});

describe('similarity matrix', () => {
  it('computes cosine similarity; a zero vector is unrelated to everything', () => {
    expect(cosineSimilarity([1, 0], [1, 0])).toBe(1);
    expect(cosineSimilarity([1, 0], [0, 1])).toBe(0);
    expect(cosineSimilarity([1, 1], [-1, -1])).toBeCloseTo(-1);
    expect(cosineSimilarity([0, 0], [1, 1])).toBe(0);
  });

  const texts = ['a river', 'a stream of water\nthat runs downhill fast', 'tax'];
  const matrix = similarityMatrix([
    [1, 0],
    [0.8, 0.6],
    [0, 1],
  ]);

  it('prints a table without colour', () => {
    expect(renderSimilarityMatrix(texts, matrix, false)).toBe(
      [
        '                                1     2     3',
        ' 1 a river                   1.00  0.80  0.00',
        ' 2 a stream of water that…   0.80  1.00  0.60',
        ' 3 tax                       0.00  0.60  1.00',
        '',
      ].join('\n'),
    );
  });

  it('shades the cells by similarity with colour', () => {
    const cell = (v: string, bg: number) => ` ${E}30m${E}48;5;${bg}m ${v}${E}49m${E}39m`;
    expect(
      renderSimilarityMatrix(
        texts.slice(0, 2),
        similarityMatrix([
          [1, 0],
          [0.8, 0.6],
        ]),
        true,
      ),
    ).toBe(
      [
        '                                1     2',
        ` 1 a river                 ${cell('1.00', 69)}${cell('0.80', 75)}`,
        ` 2 a stream of water that… ${cell('0.80', 75)}${cell('1.00', 69)}`,
        '',
      ].join('\n'),
    );
  });
});

describe('generation summary', () => {
  it('a streamed generation: stop reason, tokens, time to first token, speed after it; dim with colour', () => {
    const stats = {
      stopReasons: ['max_tokens'],
      inputTokens: 4,
      generatedTokens: 21,
      firstTokenMs: 250,
      totalMs: 2250,
    };
    expect(renderGenerationSummary(stats, false)).toBe(
      'stop: max_tokens · 4 input tokens · 21 generated · first token 250 ms · 10.0 tokens/s\n',
    );
    expect(renderGenerationSummary(stats, true)).toBe(
      `${E}2mstop: max_tokens · 4 input tokens · 21 generated · first token 250 ms · 10.0 tokens/s${E}22m\n`,
    );
  });

  it('no rate where it would mean nothing: under 20 tokens, or under 500 ms after the first', () => {
    // 10 tokens in one read 2 ms after the first: the old line said 4500.0 tokens/s.
    const few = { stopReasons: ['max_tokens'], generatedTokens: 10, firstTokenMs: 300, totalMs: 302 };
    expect(renderGenerationSummary(few, false)).toBe('stop: max_tokens · 10 generated · first token 300 ms\n');
    const quick = { stopReasons: ['max_tokens'], generatedTokens: 200, firstTokenMs: 300, totalMs: 700 };
    expect(renderGenerationSummary(quick, false)).not.toContain('tokens/s');
  });

  it('a whole answer: the time to it, the speed over all of it; repeated stop reasons once', () => {
    const stats = {
      stopReasons: ['eos_token', 'eos_token', 'max_tokens'],
      inputTokens: 2,
      generatedTokens: 30,
      totalMs: 1500,
    };
    expect(renderGenerationSummary(stats, false)).toBe(
      'stop: eos_token, max_tokens · 2 input tokens · 30 generated · answer in 1.5 s · 20.0 tokens/s\n',
    );
  });

  it('leaves out what is unknown', () => {
    expect(renderGenerationSummary({ stopReasons: ['cancelled'], totalMs: 40 }, false)).toBe(
      'stop: cancelled · answer in 40 ms\n',
    );
    expect(SGR.test(renderGenerationSummary({ stopReasons: [], totalMs: 0 }, false))).toBe(false);
  });
});
