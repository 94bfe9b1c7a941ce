import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/run-cli.js';
import { generationRequests } from '../helpers/wire.js';
import { useServer } from '../helpers/server-fixture.js';

const fixture = useServer();
const { home } = fixture;
const dir = mkdtempSync(join(tmpdir(), 'textgen-flags-'));

function tg(args: string[], input?: string) {
  return runInProcess(['--url', fixture.server.url, 'deployment', 'text-generate', '--id-or-name', 'demo', ...args], {
    env: home.env,
    ...(input !== undefined ? { input } : {}),
    cwd: dir,
  });
}

function sentParameters(): Record<string, unknown> {
  const reqs = generationRequests(fixture.server.requests);
  expect(reqs).toHaveLength(1);
  return ((reqs[0]?.json ?? {}) as { parameters?: Record<string, unknown> }).parameters ?? {};
}

describe('every --parameters-* flag reaches the wire with its name and JSON type', () => {
  const rows: Array<[string, string, string, unknown]> = [
    ['--parameters-decoding-method', 'greedy', 'decoding_method', 'greedy'],
    ['--parameters-include-stop-sequence', 'false', 'include_stop_sequence', false],
    [
      '--parameters-length-penalty',
      '{"decay_factor": 2.5, "start_index": 5}',
      'length_penalty',
      { decay_factor: 2.5, start_index: 5 },
    ],
    ['--parameters-max-new-tokens', '30', 'max_new_tokens', 30],
    ['--parameters-min-new-tokens', '5', 'min_new_tokens', 5],
    ['--parameters-prompt-variables', '{"name": "Ada"}', 'prompt_variables', { name: 'Ada' }],
    ['--parameters-random-seed', '7', 'random_seed', 7],
    ['--parameters-repetition-penalty', '1.5', 'repetition_penalty', 1.5],
    [
      '--parameters-return-options',
      '{"input_tokens": true, "top_n_tokens": 2}',
      'return_options',
      { input_tokens: true, top_n_tokens: 2 },
    ],
    ['--parameters-stop-sequences', 'fail,stop', 'stop_sequences', ['fail', 'stop']],
    ['--parameters-temperature', '0.7', 'temperature', 0.7],
    ['--parameters-time-limit', '600000', 'time_limit', 600000],
    ['--parameters-top-k', '50', 'top_k', 50],
    ['--parameters-top-p', '0.5', 'top_p', 0.5],
    ['--parameters-truncate-input-tokens', '0', 'truncate_input_tokens', 0],
    ['--parameters-typical-p', '0.5', 'typical_p', 0.5],
  ];
  it.each(rows)('%s %s → parameters.%s', async (flag, value, field, expected) => {
    const r = await tg(['--input', 'Hello', `${flag}=${value}`]);
    expect(r.stderr).not.toMatch(/error/);
    expect(r.exitCode).toBe(0);
    const params = sentParameters();
    expect(params[field]).toStrictEqual(expected);
    expect(Object.keys(params)).toEqual([field]);
  });

  it("all sixteen together, as in the cpd-cli page example, pass the service's validation", async () => {
    const args = rows.flatMap((row) => [row[0], row[1]]);
    const r = await tg(['--input', 'how far is paris from bangalore:', ...args]);
    expect(r.exitCode).toBe(0);
    expect(Object.keys(sentParameters()).sort()).toEqual(rows.map((row) => row[2]).sort());
  });

  it('a boolean flag alone means true; --flag=false means false', async () => {
    await tg(['--input', 'x', '--parameters-include-stop-sequence']);
    expect(sentParameters().include_stop_sequence).toBe(true);
    fixture.server.requests.length = 0;
    await tg(['--input', 'x', '--parameters-include-stop-sequence', 'false']);
    expect(sentParameters().include_stop_sequence).toBe(false);
  });

  it('stop sequences accumulate across repeats and JSON arrays', async () => {
    await tg(['--input', 'x', '--parameters-stop-sequences', 'a,b', '--parameters-stop-sequences', '["c,d"]']);
    expect(sentParameters().stop_sequences).toEqual(['a', 'b', 'c,d']);
  });
});

describe('JSON options', () => {
  it('--parameters inline and @file send the same body', async () => {
    const params = {
      decoding_method: 'sample',
      max_new_tokens: 12,
      random_seed: 3,
      return_options: { generated_tokens: true },
    };
    writeFileSync(join(dir, 'params.json'), JSON.stringify(params, null, 2));
    const inline = await tg(['--input', 'Hi', '--parameters', JSON.stringify(params), '-o', 'json']);
    const first = sentParameters();
    fixture.server.requests.length = 0;
    const fromFile = await tg(['--input', 'Hi', '--parameters', '@params.json', '-o', 'json']);
    expect(inline.exitCode).toBe(0);
    expect(fromFile.exitCode).toBe(0);
    expect(sentParameters()).toStrictEqual(first);
    expect(first).toStrictEqual(params);
    // Same request, same deterministic answer (only the timestamp differs).
    expect(JSON.parse(fromFile.stdout).results).toStrictEqual(JSON.parse(inline.stdout).results);
  });

  it('--moderations goes to the body as given', async () => {
    const moderations = {
      hap: { input: { enabled: true, threshold: 0.5 }, output: { enabled: true, threshold: 0.5 } },
    };
    writeFileSync(join(dir, 'mod.json'), JSON.stringify(moderations));
    const r = await tg(['--input', 'Hi', '--moderations', '@mod.json']);
    expect(r.exitCode).toBe(0);
    expect(
      (generationRequests(fixture.server.requests)[0]?.json as { moderations: unknown }).moderations,
    ).toStrictEqual(moderations);
  });

  it('--extra fields are merged into the wire body', async () => {
    const r = await tg(['--input', 'Hi', '--extra', '{"project_hint": "x"}', '--dry-run']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(`--data-raw '{"input":"Hi","project_hint":"x"}'`);
    expect(fixture.server.requests).toHaveLength(0);
  });

  it('granular flags override profile defaults, which fill the rest', async () => {
    writeFileSync(
      join(dir, 'cfg.yaml'),
      `profiles:\n  here:\n    provider: watsonx\n    url: ${fixture.server.url}\n    defaults:\n      parameters: { max_new_tokens: 9, temperature: 0.3 }\n`,
    );
    const r = await runInProcess(
      [
        '--config',
        join(dir, 'cfg.yaml'),
        '--profile',
        'here',
        'deployment',
        'text-generate',
        '--id-or-name',
        'demo',
        '--input',
        'x',
        '--parameters-temperature',
        '1.2',
      ],
      { env: home.env, cwd: dir },
    );
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(sentParameters()).toStrictEqual({ max_new_tokens: 9, temperature: 1.2 });
  });
});

describe('bad input is a usage error before any request', () => {
  const cases: Array<[string, string[], RegExp]> = [
    [
      '--parameters with a granular twin',
      ['--parameters', '{"top_k": 5}', '--parameters-top-k', '5'],
      /--parameters and --parameters-top-k/,
    ],
    [
      '--parameters with --parameters-return-options',
      ['--parameters', '{}', '--parameters-return-options', '{"input_text": true}'],
      /--parameters and --parameters-return-options/,
    ],
    [
      '--parameters with --parameters-decoding-method',
      ['--parameters', '{}', '--parameters-decoding-method', 'greedy'],
      /--parameters and --parameters-decoding-method/,
    ],
    ['invalid inline JSON', ['--parameters', '{"top_k": }'], /--parameters: invalid JSON.*line 1, column 11/],
    ['invalid JSON in a file', ['--parameters', '@bad.json'], /bad\.json.*line 3, column/],
    ['a missing @file', ['--moderations', '@nope.json'], /--moderations.*nope\.json/],
    [
      'an unknown field',
      ['--parameters', '{"max_new_tokenz": 5}'],
      /unknown field "max_new_tokenz" \(did you mean "max_new_tokens"\?\)/,
    ],
    [
      'top_k out of range',
      ['--parameters-top-k', '500'],
      /--parameters-top-k must be an integer from 1 to 100, got 500/,
    ],
    [
      'temperature out of range',
      ['--parameters-temperature', '3'],
      /--parameters-temperature must be a number from 0 to 2, got 3/,
    ],
    ['top_p zero', ['--parameters-top-p', '0'], /--parameters-top-p/],
    ['typical_p above 1', ['--parameters-typical-p', '1.5'], /--parameters-typical-p/],
    ['repetition_penalty below 1', ['--parameters-repetition-penalty', '0.5'], /--parameters-repetition-penalty/],
    ['random_seed zero', ['--parameters-random-seed', '0'], /--parameters-random-seed/],
    ['a fractional integer', ['--parameters-max-new-tokens', '1.5'], /--parameters-max-new-tokens must be an integer/],
    ['negative min tokens', ['--parameters-min-new-tokens', '-1'], /--parameters-min-new-tokens/],
    ['time_limit zero', ['--parameters-time-limit', '0'], /--parameters-time-limit/],
    ['negative truncate', ['--parameters-truncate-input-tokens', '-3'], /--parameters-truncate-input-tokens/],
    ['seven stop sequences', ['--parameters-stop-sequences', 'a,b,c,d,e,f,g'], /--parameters-stop-sequences/],
    ['a bad decoding method', ['--parameters-decoding-method', 'beam'], /--parameters-decoding-method/],
    [
      'a bad boolean',
      ['--parameters-include-stop-sequence=maybe'],
      /--parameters-include-stop-sequence must be true or false/,
    ],
    [
      'top_n_tokens above 5 in JSON',
      ['--parameters-return-options', '{"top_n_tokens": 9}'],
      /--parameters-return-options.*top_n_tokens/,
    ],
    ['an unknown --output', ['-o', 'xml'], /--output must be one of text, json, jsonl, yaml/],
    ['--extra that is not an object', ['--extra', '[1]'], /--extra/],
    ['a bad --stream value', ['--stream=sometimes'], /--stream must be true or false/],
  ];
  beforeAll(() => {
    writeFileSync(join(dir, 'bad.json'), '{\n  "max_new_tokens": 5,\n  "top_k": ,\n}\n');
  });
  it.each(cases)('%s', async (_name, args, message) => {
    const r = await tg(['--input', 'Hello', ...args]);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
    expect(
      r.stderr
        .trim()
        .split('\n')
        .filter((l) => !l.startsWith('hint:')),
    ).toHaveLength(1);
    expect(fixture.server.requests).toHaveLength(0);
  });
});
