import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/emulator/core/index.js';
import { makeHome, runBin } from '../helpers/run-cli.js';
import { expectValidTaskWire, makeDocx, TINY_PNG } from '../helpers/aleph-alpha-task-fixtures.js';
import { alephAlphaEvaluationResultSchema } from '../contract/aleph-alpha-task-schemas.js';

/** The Aleph Alpha task commands through the built binary (run `npm run build` first). */
const home = makeHome();
let server: RunningServer;

beforeAll(async () => {
  server = await startServer({ requestLog: { max: 1000 } });
  mkdirSync(join(home.dir, 'config', 'textgen'), { recursive: true });
  writeFileSync(
    join(home.dir, 'config', 'textgen', 'config.yaml'),
    [
      'profiles:',
      `  aa: { provider: aleph-alpha, url: "${server.url}", defaults: { model: luminous-base } }`,
      `  wx: { provider: watsonx, url: "${server.url}" }`,
      '',
    ].join('\n'),
  );
  writeFileSync(join(home.dir, 'dot.png'), TINY_PNG);
  writeFileSync(join(home.dir, 'report.docx'), makeDocx(['Andreas likes pizza.', 'Ben likes soup.']));
});
afterEach(() => {
  expectValidTaskWire(server.requests);
  server.requests.length = 0;
});
afterAll(async () => {
  await server.close();
  home.cleanup();
});

const run = (args: string[], input?: string) =>
  runBin(args, { env: home.env, cwd: home.dir, ...(input !== undefined ? { input } : {}) });

describe('Aleph Alpha tasks through bin/textgen.js', () => {
  it('evaluate with an image: JSON on stdout, nothing on stderr', async () => {
    const r = await run([
      '--profile',
      'aa',
      'evaluate',
      '--image',
      '@dot.png',
      '--prompt',
      'A picture of',
      '--expected',
      ' a dot',
      '-o',
      'json',
    ]);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(alephAlphaEvaluationResultSchema.safeParse(JSON.parse(r.stdout).result).success).toBe(true);
    expect((server.requests[0]!.json as { prompt: Array<{ type: string }> }).prompt.map((i) => i.type)).toEqual([
      'image',
      'text',
    ]);
  });

  it('explain prints score lines; qa reads a .docx; summarize reads stdin', async () => {
    const explain = await run([
      '--profile',
      'aa',
      'explain',
      '--prompt',
      'Rivers carry water. Fish swim.',
      '--target',
      ' Water',
      '--granularity',
      'sentence',
    ]);
    expect(explain.exitCode).toBe(0);
    expect(explain.stdout).toMatch(/^ *-?\d\.\d{4} {2}"Rivers carry water\."\n *-?\d\.\d{4} {2}"Fish swim\."\n$/);
    const qa = await run([
      '--profile',
      'aa',
      'qa',
      '--query',
      'Who likes soup?',
      '--document',
      '@report.docx',
      '--output',
      'json',
    ]);
    expect(JSON.parse(qa.stdout).answers[0]).toEqual({ answer: 'Ben', score: 1, evidence: 'Ben likes soup.' });
    const summary = await run(
      ['--profile', 'aa', 'summarize'],
      'Rivers carry water. They shape valleys. Fish live in them.',
    );
    expect(summary.stdout).toBe('Rivers carry water. They shape valleys.\n');
  });

  it('an unsupported provider exits 2 and sends nothing; --dry-run prints curl', async () => {
    const wx = await run(['--profile', 'wx', 'summarize', '--document', 'x']);
    expect(wx.exitCode).toBe(2);
    expect(wx.stderr).toMatch(/^error: summarize is not supported by watsonx; it works with aleph-alpha$/m);
    const dry = await run(['--profile', 'aa', 'qa', '--query', 'Who?', '--document', 'x', '--dry-run']);
    expect(dry.exitCode).toBe(0);
    expect(dry.stdout).toMatch(/^curl .*\/qa' .*--data-raw '\{"query":"Who\?","documents":\[\{"text":"x"\}\]\}'\n$/);
    expect(server.requests).toHaveLength(0);
  });

  it('the built-in local-aa profile answers every task with no setup', async () => {
    const r = await run([
      '--profile',
      'local-aa',
      'qa',
      '--query',
      'Who likes pizza?',
      '--document',
      'Andreas likes pizza.',
    ]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('Andreas  (score 1.0000)\n  evidence: Andreas likes pizza.\n');
  });

  it('help lists the task flags', async () => {
    const r = await run(['explain', '--help']);
    expect(r.exitCode).toBe(0);
    for (const flag of [
      '--prompt <text>',
      '--image <@file>',
      '--prompt-json <json|@file>',
      '--target <text>',
      '--granularity <kind>',
      '--normalize [bool]',
      '--nice [bool]',
    ])
      expect(r.stdout).toContain(flag);
  });
});
