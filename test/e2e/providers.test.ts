import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../src/emulator/core/index.js';
import { runBin, runInProcess } from '../helpers/run-cli.js';
import { useServer } from '../helpers/server-fixture.js';
import { anyGenerationRequests, expectValidWire } from '../helpers/wire.js';
import { watsonxTextGenResponseSchema } from '../contract/watsonx-schemas.js';

/** One embedded server speaking all four protocols; one profile per provider pointing at it. */
const fixture = useServer();
const { home } = fixture;
const PROFILES = ['wx', 'azure', 'openai', 'aa', 'oip'] as const;
const KIND: Record<(typeof PROFILES)[number], string> = {
  wx: 'watsonx',
  azure: 'azure-openai',
  openai: 'openai',
  aa: 'aleph-alpha',
  oip: 'open-inference',
};

beforeAll(() => {
  const url = fixture.server.url;
  mkdirSync(join(home.dir, 'config', 'textgen'), { recursive: true });
  writeFileSync(
    join(home.dir, 'config', 'textgen', 'config.yaml'),
    [
      'profiles:',
      `  wx: { provider: watsonx, url: "${url}" }`,
      `  azure: { provider: azure-openai, url: "${url}", api_version: "2022-03-01-preview" }`,
      `  openai: { provider: openai, url: "${url}/v1" }`,
      `  aa: { provider: aleph-alpha, url: "${url}", streaming: true }`,
      `  aa116: { provider: aleph-alpha, url: "${url}" }`,
      `  oip: { provider: open-inference, url: "${url}" }`,
      '',
    ].join('\n'),
  );
});

// The same cpd-cli command line for every protocol; the model is one every local protocol serves — on watsonx, whose
// deployments are known by id or serving name only, the local `demo` deployment of the same engine.
const SAME_OPTIONS = [
  '--input',
  'Tell me about rivers',
  '--parameters-max-new-tokens',
  '12',
  '--parameters-decoding-method',
  'greedy',
];
const SAME = ['deployment', 'text-generate', '--id-or-name', 'luminous-base', ...SAME_OPTIONS];
const sameFor = (p: string) =>
  p === 'wx' ? ['deployment', 'text-generate', '--id-or-name', 'demo', ...SAME_OPTIONS] : SAME;

describe('one command line, four protocols', () => {
  it('gives the same canonical JSON shape — and, greedy on the same engine, the same text — everywhere', async () => {
    const answers = [];
    for (const p of PROFILES) {
      const r = await runBin(['--profile', p, ...sameFor(p), '-o', 'json'], { env: home.env });
      expect(r.stderr, p).toBe('');
      expect(r.exitCode, p).toBe(0);
      const body = JSON.parse(r.stdout);
      const shape = watsonxTextGenResponseSchema.safeParse(body);
      expect(shape.success, `${p}: ${shape.success ? '' : JSON.stringify(shape.error.issues)}`).toBe(true);
      expect(Object.keys(body).slice(0, 1), p).toEqual(['model_id']);
      answers.push(body.results[0]);
    }
    for (const a of answers) {
      expect(a.generated_text).toBe(answers[0].generated_text);
      expect(a.generated_token_count).toBe(12);
      expect(a.stop_reason).toBe('max_tokens');
    }
    expect(anyGenerationRequests(fixture.server.requests).map((r) => r.path)).toEqual([
      '/ml/v1/deployments/demo/text/generation',
      '/openai/deployments/luminous-base/completions',
      '/v1/completions',
      '/complete',
      '/v2/models/luminous-base/generate',
    ]);
  });

  it.each(PROFILES)('%s: streamed text equals the concatenated deltas and the whole answer', async (p) => {
    const whole = await runBin(['--profile', p, ...sameFor(p)], { env: home.env });
    const streamed = await runBin(['--profile', p, ...sameFor(p), '--stream'], { env: home.env });
    const lines = await runBin(['--profile', p, ...sameFor(p), '--stream', '-o', 'jsonl'], { env: home.env });
    expect(streamed.exitCode).toBe(0);
    expect(streamed.stdout).toBe(whole.stdout);
    const chunks = lines.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(chunks.length).toBeGreaterThan(1);
    expect(`${chunks.map((c) => c.results[0].generated_text).join('')}\n`).toBe(whole.stdout);
  });

  it.each(PROFILES)('%s: an error inside a 200 stream keeps the partial text and exits 6', async (p) => {
    fixture.server.faults.push({ kind: 'stream-error', afterEvents: 4 });
    const r = await runBin(['--profile', p, ...sameFor(p), '--stream', '--parameters-max-new-tokens', '30'], {
      env: home.env,
    });
    expect(r.exitCode).toBe(6);
    expect(r.stdout.trim().length).toBeGreaterThan(0);
    expect(r.stderr).toMatch(new RegExp(`^error: ${KIND[p]} stream broke off`, 'm'));
  });

  it.each(PROFILES)("%s: --raw prints the provider's own body", async (p) => {
    const r = await runBin(['--profile', p, ...sameFor(p), '--raw'], { env: home.env });
    expect(r.exitCode).toBe(0);
    const body = JSON.parse(r.stdout);
    const own = { wx: 'results', azure: 'choices', openai: 'choices', aa: 'completions', oip: 'text_output' }[p];
    expect(body).toHaveProperty(own);
  });

  it('Aleph Alpha 1.16 (no streaming) still answers a --stream request, whole', async () => {
    const r = await runBin(['--profile', 'aa116', ...SAME, '--stream'], { env: home.env });
    expect(r.exitCode).toBe(0);
    const sent = anyGenerationRequests(fixture.server.requests)[0];
    expect(sent?.headers.accept).toBe('application/json');
    expect((sent?.json as { stream?: unknown }).stream).toBeUndefined();
    expect(r.stdout.trim().length).toBeGreaterThan(0);
  });
});

describe("each provider's errors read clearly", () => {
  it.each<[string, string[], number, RegExp]>([
    [
      'azure',
      ['--input', 'forbidden-words please'],
      4,
      /^error: azure-openai returned HTTP 400 content_filter: .*\(apim-request-id [0-9a-f-]+\)$/m,
    ],
    [
      'aa',
      ['--id-or-name', 'no-such-model'],
      4,
      /^error: aleph-alpha returned HTTP 404 UNKNOWN_MODEL: .*\(trace [\w-]+\)$/m,
    ],
    ['oip', ['--parameters-max-new-tokens', '0'], 2, /max_new_tokens/],
  ])('%s', async (p, args, code, message) => {
    const base = ['--profile', p, 'deployment', 'text-generate', '--id-or-name', 'luminous-base', '--input', 'Hi'];
    const r = await runBin([...base, ...args], { env: home.env });
    expect(r.exitCode).toBe(code);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
  });

  it('a 503 QUEUE_FULL from Aleph Alpha is retried, then reported', async () => {
    fixture.server.faults.push({ kind: 'status', status: 503, times: 2 });
    const r = await runBin(['--profile', 'aa', ...SAME, '--retries', '1'], { env: home.env });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(/aleph-alpha returned HTTP 503 QUEUE_FULL/);
    expect(anyGenerationRequests(fixture.server.requests)).toHaveLength(2);
  });
});

/** docs/design.md §3: the cells marked — (and * without server_parameters). */
const PARAM_FLAGS: Record<string, string[]> = {
  min_new_tokens: ['--parameters-min-new-tokens', '2'],
  top_k: ['--parameters-top-k', '5'],
  random_seed: ['--parameters-random-seed', '3'],
  repetition_penalty: ['--parameters-repetition-penalty', '1.2'],
  typical_p: ['--parameters-typical-p', '0.5'],
  truncate_input_tokens: ['--parameters-truncate-input-tokens', '10'],
  length_penalty: ['--parameters-length-penalty', '{"decay_factor": 2, "start_index": 1}'],
  'return_options.token_ranks': ['--parameters-return-options', '{"token_ranks": true}'],
  'return_options.input_text': ['--parameters-return-options', '{"input_text": true}'],
  moderations: ['--moderations', '{"hap": {"input": {"enabled": true, "threshold": 0.5}}}'],
};
const UNSUPPORTED: Array<[string, string]> = [
  // random_seed is `seed` on the OpenAI wire (issue 12): no longer a — cell for azure and openai.
  ...[
    'min_new_tokens',
    'top_k',
    'repetition_penalty',
    'typical_p',
    'truncate_input_tokens',
    'length_penalty',
    'return_options.token_ranks',
    'moderations',
  ].flatMap((p) => [['azure', p] as [string, string], ['openai', p] as [string, string]]),
  ...[
    'random_seed',
    'repetition_penalty',
    'typical_p',
    'truncate_input_tokens',
    'length_penalty',
    'return_options.token_ranks',
    'moderations',
  ].map((p) => ['aa', p] as [string, string]),
  ...[
    'min_new_tokens',
    'top_k',
    'random_seed',
    'repetition_penalty',
    'typical_p',
    'truncate_input_tokens',
    'length_penalty',
    'return_options.token_ranks',
    'moderations',
    'return_options.input_text',
  ].map((p) => ['oip', p] as [string, string]),
];

describe('a parameter the provider cannot take', () => {
  const base = (p: string) => [
    '--profile',
    p,
    'deployment',
    'text-generate',
    '--id-or-name',
    'luminous-base',
    '--input',
    'Hi',
  ];

  it.each(UNSUPPORTED)('%s + %s → exit 2 naming both, nothing sent', async (p, param) => {
    const r = await runInProcess([...base(p), ...(PARAM_FLAGS[param] as string[])], { env: home.env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(
      new RegExp(
        `parameter ${param.replace('.', '\\.')} (is not supported by|is sent to) ${KIND[p as keyof typeof KIND]}`,
      ),
    );
    expect(fixture.server.requests).toHaveLength(0);
  });

  it.each(UNSUPPORTED.filter((_, i) => i % 3 === 0))(
    '%s + %s with --ignore-unsupported → a warning, and the request goes without it',
    async (p, param) => {
      const r = await runInProcess([...base(p), ...(PARAM_FLAGS[param] as string[]), '--ignore-unsupported'], {
        env: home.env,
      });
      expect(r.exitCode).toBe(0);
      expect(r.stderr).toMatch(new RegExp(`^warning: ignoring ${param.replace('.', '\\.')}`, 'm'));
      expect(anyGenerationRequests(fixture.server.requests)).toHaveLength(1);
    },
  );

  it('an Open Inference server that takes extra keys gets them when the profile lists them', async () => {
    writeFileSync(
      join(home.dir, '.textgenrc.yaml'),
      `profiles:\n  oipx: { provider: open-inference, url: "${fixture.server.url}", server_parameters: [top_k, random_seed] }\n`,
    );
    const r = await runInProcess([...base('oipx'), '--parameters-top-k', '5', '--parameters-random-seed', '3'], {
      env: home.env,
      cwd: home.dir,
    });
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(
      (anyGenerationRequests(fixture.server.requests)[0]?.json as { parameters: Record<string, unknown> }).parameters,
    ).toMatchObject({ top_k: 5, seed: 3 });
  });

  it.each<[string, string[], RegExp]>([
    [
      'azure: five stop sequences',
      ['--parameters-stop-sequences', 'a,b,c,d,e'],
      /azure-openai accepts at most 4 stop sequences, got 5/,
    ],
    ['azure: best_of with streaming', ['--extra', '{"best_of": 3}', '--stream'], /best_of/],
    ['wx: seven stop sequences', ['--parameters-stop-sequences', 'a,b,c,d,e,f,g'], /--parameters-stop-sequences/],
  ])('provider limits are enforced before sending: %s', async (name, args, message) => {
    const p = name.split(':')[0] as string;
    const r = await runInProcess([...base(p), ...args], { env: home.env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(fixture.server.requests).toHaveLength(0);
  });
});

describe('what the CLI does itself for providers that cannot', () => {
  it('prompt variables are filled before sending', async () => {
    const r = await runInProcess(
      [
        '--profile',
        'azure',
        'deployment',
        'text-generate',
        '--id-or-name',
        'd',
        '--input',
        'Hello {{name}}',
        '--parameters-prompt-variables',
        '{"name": "Ada"}',
      ],
      { env: home.env },
    );
    expect(r.exitCode).toBe(0);
    expect((anyGenerationRequests(fixture.server.requests)[0]?.json as { prompt: string }).prompt).toBe('Hello Ada');
  });

  it.each(['azure', 'aa', 'oip'])(
    '%s: time_limit is a client deadline: the text so far, stop_reason time_limit, exit 0',
    async (p) => {
      const slow = await startServer({ requestLog: { max: 1000 }, tokenDelayMs: 40 });
      try {
        const cfg = join(home.dir, `slow-${p}.yaml`);
        const kind = KIND[p as keyof typeof KIND];
        writeFileSync(cfg, `profiles:\n  slow: { provider: ${kind}, url: "${slow.url}", streaming: true }\n`);
        const r = await runBin(
          // Greedy on this prompt runs for 104 tokens before end-of-text: far past the deadline.
          [
            '--config',
            cfg,
            '--profile',
            'slow',
            'deployment',
            'text-generate',
            '--id-or-name',
            'luminous-base',
            '--input',
            'Once upon a time',
            '--parameters-decoding-method',
            'greedy',
            '--parameters-max-new-tokens',
            '200',
            '--parameters-time-limit',
            '1500',
            '-o',
            'json',
          ],
          { env: home.env },
        );
        expect(r.exitCode).toBe(0);
        const result = JSON.parse(r.stdout).results[0];
        expect(result.stop_reason).toBe('time_limit');
        expect(result.generated_text.length).toBeGreaterThan(0);
        // The CLI stopped reading at its deadline: its text is a proper beginning of the whole greedy answer, which the
        // undelayed server gives at once (content, not the wall clock, so a busy machine cannot make it pass or fail).
        const whole = await runInProcess(
          [
            '--profile',
            p,
            'deployment',
            'text-generate',
            '--id-or-name',
            'luminous-base',
            '--input',
            'Once upon a time',
            '--parameters-decoding-method',
            'greedy',
            '--parameters-max-new-tokens',
            '200',
            '-o',
            'json',
          ],
          { env: home.env },
        );
        const wholeText = (JSON.parse(whole.stdout) as { results: Array<{ generated_text: string }> }).results[0]!
          .generated_text;
        expect(wholeText.startsWith(result.generated_text)).toBe(true);
        expect(result.generated_text.length).toBeLessThan(wholeText.length);
        await expectValidWire(slow.requests);
      } finally {
        await slow.close();
      }
    },
  );
});
