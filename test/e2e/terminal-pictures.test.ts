import { afterAll, describe, expect, it } from 'vitest';
import { makeHome, runBin } from '../helpers/run-cli.js';
import { runOnTerminal } from '../helpers/pty.js';

/**
 * The pictures (issue 5): on a pseudo-terminal (util-linux `script`, streams merged into one screen) they are
 * coloured; through a pipe — even with FORCE_COLOR — stdout and stderr carry no escape code at all.
 */
const home = makeHome();
afterAll(() => home.cleanup());

const SGR = /\u001b\[[0-9;]*m/;
const ANY_ESCAPE = /\u001b/;

const onTerminal = (args: string[], env: Record<string, string> = {}) => runOnTerminal(args, { ...home.env, ...env });

const TOKENIZE = ['--profile', 'local', 'tokenize', '-m', 'ibm/granite-4-h-small', 'Hello world, how are you'];
const GENERATE = [
  '--profile',
  'local',
  'deployment',
  'text-generate',
  '--id-or-name',
  'demo',
  '--input',
  'Hello',
  '--parameters-max-new-tokens',
  '6',
];
const EXPLAIN = [
  '--profile',
  'local-aa',
  'explain',
  '--prompt',
  'An apple a day keeps the doctor away.',
  '--target',
  ' Apples are healthy.',
  '--granularity',
  'word',
];
const SIMILARITY = [
  '--profile',
  'local',
  'embed',
  '-m',
  'ibm/slate-30m-english-rtrvr',
  '--similarity',
  '--input-file',
  '-',
];
const TEXTS = 'a river\na stream\nthe tax office\n';

describe('pictures on a terminal', () => {
  it('tokenize shows the token boundaries in alternating colours, then the count', async () => {
    const r = await onTerminal(TOKENIZE);
    expect(r.exitCode).toBe(0);
    expect(r.screen).toContain(
      '\u001b[30m\u001b[48;5;153mHello\u001b[49m\u001b[39m\u001b[30m\u001b[48;5;223m world\u001b[49m\u001b[39m\u001b[30m\u001b[48;5;153m,\u001b[49m\u001b[39m',
    );
    expect(r.screen).toMatch(/\r?\n6 tokens\s*$/);
  });

  it.each([
    ['whole', []],
    ['streamed', ['--stream']],
  ])('--show-logprobs colours each %s token, then a legend and the summary line', async (_n, extra) => {
    const r = await onTerminal([...GENERATE, '--show-logprobs', ...extra]);
    expect(r.exitCode).toBe(0);
    expect(r.screen).toMatch(/\u001b\[38;5;(34|142|178|208|196)m [A-Za-z.,]+\u001b\[39m/);
    expect(r.screen).toContain('token probability: \u001b[38;5;34m■ ≥90%');
    // The summary follows the text: dim, with the stop reason, counts and speed.
    expect(r.screen).toMatch(
      /\u001b\[2mstop: max_tokens · \d+ input tokens · 6 generated · (first token|answer in) \d+ m?s( · [\d.]+ tokens\/s)?\u001b\[22m/,
    );
    expect(r.screen.indexOf('token probability')).toBeGreaterThan(r.screen.search(/\u001b\[38;5;\d+m /));
  });

  it('-q leaves out the summary line and the legend', async () => {
    const r = await onTerminal([...GENERATE, '--show-logprobs', '-q']);
    expect(r.exitCode).toBe(0);
    expect(r.screen).not.toMatch(/stop:|token probability/);
    expect(r.screen).toMatch(/\u001b\[38;5;\d+m/);
  });

  it('explain draws the prompt as a heat map with its scale', async () => {
    const r = await onTerminal(EXPLAIN);
    expect(r.exitCode).toBe(0);
    expect(r.screen).toMatch(/\u001b\[30m\u001b\[48;5;\d+mapple\u001b\[49m\u001b\[39m/);
    expect(r.screen).toMatch(/\u001b\[2mscore -?\d\.\d{4} /);
  });

  it('embed --similarity shades the cells of the matrix', async () => {
    const file = `${home.dir}/texts.txt`;
    const { writeFileSync } = await import('node:fs');
    writeFileSync(file, TEXTS);
    const r = await onTerminal([...SIMILARITY.slice(0, -1), file]);
    expect(r.exitCode).toBe(0);
    expect(r.screen).toMatch(/ 1 a river +\u001b\[30m\u001b\[48;5;69m 1\.00\u001b\[49m\u001b\[39m/);
    expect(r.screen).toMatch(/ 3 the tax office/);
  });

  it.each([
    ['--no-color', { args: ['--no-color'], env: {} }],
    ['NO_COLOR', { args: [], env: { NO_COLOR: '1' } }],
  ])('%s turns every picture back into plain text', async (_n, { args, env }) => {
    const tokenize = await onTerminal([...args, ...TOKENIZE], env);
    expect(tokenize.screen).not.toMatch(SGR);
    expect(tokenize.screen.trim()).toBe('6');
    const generate = await onTerminal([...args, ...GENERATE, '--show-logprobs'], env);
    expect(generate.screen).not.toMatch(SGR);
    expect(generate.screen).toMatch(/stop: max_tokens · /);
    expect(generate.screen).not.toMatch(/token probability/);
    const explain = await onTerminal([...args, ...EXPLAIN], env);
    expect(explain.screen).not.toMatch(SGR);
    expect(explain.screen).toMatch(/ {2}0\.\d{4} {2}"apple"/);
  });
});

describe('pictures through a pipe', () => {
  const run = (args: string[], input?: string) =>
    runBin(args, { env: { ...home.env, FORCE_COLOR: '1' }, ...(input !== undefined ? { input } : {}) });

  it.each([
    ['tokenize', TOKENIZE, undefined],
    ['text-generate --show-logprobs', [...GENERATE, '--show-logprobs'], undefined],
    ['text-generate --show-logprobs --stream', [...GENERATE, '--show-logprobs', '--stream'], undefined],
    ['explain', EXPLAIN, undefined],
    ['embed --similarity', SIMILARITY, TEXTS],
  ])('%s writes no escape codes, even with FORCE_COLOR, and no summary line', async (_n, args, input) => {
    const r = await run(args as string[], input);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).not.toMatch(ANY_ESCAPE);
    expect(r.stderr).not.toMatch(/stop:|token probability/);
    expect(r.stdout.length).toBeGreaterThan(0);
  });

  it('tokenize prints the count alone', async () => {
    expect((await run(TOKENIZE)).stdout).toBe('6\n');
  });

  it('embed --similarity prints the plain matrix; -o json adds a "similarity" field to the result', async () => {
    const text = await run(SIMILARITY, TEXTS);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[1]).toMatch(/^ 1 a river +1\.00 +-?\d\.\d\d +-?\d\.\d\d$/);
    const json = await run([...SIMILARITY, '-o', 'json'], TEXTS);
    const body = JSON.parse(json.stdout);
    expect(Object.keys(body)).toEqual(['model', 'dimensions', 'embeddings', 'input_token_count', 'similarity']);
    expect(body.similarity).toHaveLength(3);
    expect(body.similarity[0][0]).toBeCloseTo(1);
    expect(body.similarity[0][1]).toBe(body.similarity[1][0]);
  });

  it('embed --similarity with several layers is a usage error', async () => {
    const r = await runBin(['--profile', 'local-aa', 'embed', '--similarity', '--layers', '0,-1', 'hello'], {
      env: home.env,
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--similarity compares one vector per text/);
  });
});
