import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { startServer } from '../../src/emulator/core/index.js';
import { BIN, runBin } from '../helpers/run-cli.js';
import { expectValidWatsonxWire, generationRequests } from '../helpers/wire.js';
import { useServer } from '../helpers/server-fixture.js';
import { watsonxTextGenResponseSchema } from '../contract/watsonx-schemas.js';

const fixture = useServer();
const { home } = fixture;

const TG = ['deployment', 'text-generate', '--id-or-name', 'demo'];
const tg = (args: string[], opts: { input?: string; env?: Record<string, string> } = {}) =>
  runBin(['--url', fixture.server.url, ...TG, ...args], {
    env: { ...home.env, ...opts.env },
    cwd: home.dir,
    ...(opts.input !== undefined ? { input: opts.input } : {}),
  });

describe('the main job on the built-in local profile', () => {
  it('generates text with no configuration at all', async () => {
    const r = await runBin(
      ['--profile', 'local', 'deployment', 'text-generate', '--id-or-name', 'demo', '--input', 'Hello'],
      { env: home.env },
    );
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim().length).toBeGreaterThan(10);
    expect(r.stdout.endsWith('\n')).toBe(true);
    expect(r.stderr).toMatch(/^warning: \[unspecified_max_token\]/m);
  });

  it('--version and --help work and exit 0', async () => {
    const v = await runBin(['--version']);
    expect(v).toMatchObject({ exitCode: 0, stderr: '' });
    expect(v.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    const h = await runBin(['deployment', 'text-generate', '--help']);
    expect(h.exitCode).toBe(0);
    // Global options are listed once, in `textgen help globals`; each command's help points there.
    expect(h.stdout).toContain('textgen help globals');
    for (const flag of ['--id-or-name', '--parameters-typical-p', '--moderations', '--input-file'])
      expect(h.stdout).toContain(flag);
  });

  it('global options are accepted after the command words (cpd-cli style)', async () => {
    const r = await runBin([...TG, '--input', 'Hi', '--url', fixture.server.url, '--output', 'json'], {
      env: home.env,
    });
    expect(r.exitCode).toBe(0);
    expect(watsonxTextGenResponseSchema.safeParse(JSON.parse(r.stdout)).success).toBe(true);
  });

  it('an unknown option is a one-line usage error with exit 2', async () => {
    const r = await tg(['--input', 'Hi', '--parameters-top-q', '3']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/unknown option '--parameters-top-q'/);
    expect(r.stdout).toBe('');
  });
});

describe('where the prompt comes from', () => {
  it('piped stdin is the prompt', async () => {
    const piped = await tg(['-o', 'json', '--parameters-random-seed', '2'], { input: 'Tell me about rivers' });
    const flag = await tg(['-o', 'json', '--parameters-random-seed', '2', '--input', 'Tell me about rivers']);
    expect(piped.exitCode).toBe(0);
    const [a, b] = generationRequests(fixture.server.requests);
    expect((a?.json as { input: string }).input).toBe('Tell me about rivers');
    expect(b?.json).toStrictEqual(a?.json);
    expect(JSON.parse(piped.stdout).results).toStrictEqual(JSON.parse(flag.stdout).results);
  });

  it('--input-file - reads stdin, --input-file PATH reads a file', async () => {
    writeFileSync(join(home.dir, 'prompt.txt'), 'From a file\nwith two lines');
    expect((await tg(['--input-file', '-'], { input: 'From stdin' })).exitCode).toBe(0);
    expect((await tg(['--input-file', 'prompt.txt'])).exitCode).toBe(0);
    const inputs = generationRequests(fixture.server.requests).map((r) => (r.json as { input: string }).input);
    expect(inputs).toEqual(['From stdin', 'From a file\nwith two lines']);
  });

  it.each([
    ['stdin closed, both missing', [], undefined, /missing required options: --id-or-name, --input/],
    ['empty piped stdin', ['--id-or-name', 'demo'], '', /missing required option: --input/],
    ['no --id-or-name', ['--input', 'Hi'], undefined, /missing required option: --id-or-name/],
  ])('without a terminal, %s → exit 2 at once, no prompt', async (_n, args, input, message) => {
    // A run that waited on a prompt would never end: runBin fails it as a hang (its own timeout), whatever the load.
    const r = await runBin(['--url', fixture.server.url, 'deployment', 'text-generate', ...(args as string[])], {
      env: home.env,
      ...(input !== undefined ? { input: input as string } : {}),
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message as RegExp);
    expect(r.stdout).toBe('');
    expect(fixture.server.requests).toHaveLength(0);
  });
});

describe('output formats', () => {
  it('-o json prints the canonical TextGenResponse', async () => {
    const r = await tg(['--input', 'Hi', '-o', 'json', '--parameters-max-new-tokens', '5']);
    expect(r.exitCode).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(watsonxTextGenResponseSchema.safeParse(body).success).toBe(true);
    expect(body.results[0].generated_token_count).toBeLessThanOrEqual(5);
  });

  it('-o yaml prints the same result as YAML', async () => {
    const r = await tg(['--input', 'Hi', '-o', 'yaml', '--parameters-random-seed', '4']);
    expect(r.exitCode).toBe(0);
    const { parse } = await import('yaml');
    const json = await tg(['--input', 'Hi', '-o', 'json', '--parameters-random-seed', '4']);
    expect(parse(r.stdout).results).toStrictEqual(JSON.parse(json.stdout).results);
  });

  it('-o jsonl with --stream writes one canonical chunk per line', async () => {
    const r = await tg([
      '--input',
      'Hi',
      '--stream',
      '-o',
      'jsonl',
      '--parameters-max-new-tokens',
      '8',
      '--parameters-random-seed',
      '3',
    ]);
    expect(r.exitCode).toBe(0);
    const lines = r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.length).toBeGreaterThan(2);
    for (const l of lines) expect(l.results).toHaveLength(1);
    const text = lines.map((l) => l.results[0].generated_text).join('');
    const whole = await tg([
      '--input',
      'Hi',
      '-o',
      'json',
      '--parameters-max-new-tokens',
      '8',
      '--parameters-random-seed',
      '3',
    ]);
    expect(text).toBe(JSON.parse(whole.stdout).results[0].generated_text);
  });

  it('-j with --raw-output prints the bare string; without it, JSON', async () => {
    const raw = await tg([
      '--input',
      'Hi',
      '-o',
      'json',
      '-j',
      'results[0].stop_reason',
      '--raw-output',
      '--parameters-random-seed',
      '9',
    ]);
    expect(raw.exitCode).toBe(0);
    expect(raw.stdout).toMatch(/^(max_tokens|eos_token|stop_sequence)\n$/);
    const quoted = await tg(['--input', 'Hi', '-j', 'results[0].stop_reason', '--parameters-random-seed', '9']);
    expect(quoted.stdout).toBe(`"${raw.stdout.trim()}"\n`);
  });

  it('an invalid JMESPath expression is a usage error', async () => {
    const r = await tg(['--input', 'Hi', '-j', 'results[']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/-j\/--jmes-query: invalid expression/);
  });

  it("--raw prints the provider's own body", async () => {
    const r = await tg(['--input', 'Hi', '--raw']);
    expect(r.exitCode).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(body.system.warnings[0].id).toBe('unspecified_max_token');
  });
});

describe('streaming', () => {
  it('text output equals the concatenated deltas and the non-streamed text', async () => {
    const args = [
      '--input',
      'Write about the sea',
      '--parameters-random-seed',
      '11',
      '--parameters-max-new-tokens',
      '25',
    ];
    const streamed = await tg([...args, '--stream']);
    const stream2 = await runBin(
      ['--url', fixture.server.url, 'deployment', 'text-generate-stream', '--id-or-name', 'demo', ...args],
      { env: home.env },
    );
    const whole = await tg([...args, '-o', 'json']);
    expect(streamed.exitCode).toBe(0);
    const text = JSON.parse(whole.stdout).results[0].generated_text as string;
    expect(streamed.stdout).toBe(`${text}\n`);
    expect(stream2.stdout).toBe(streamed.stdout);
    expect(generationRequests(fixture.server.requests).map((r) => r.path)).toEqual([
      '/ml/v1/deployments/demo/text/generation_stream',
      '/ml/v1/deployments/demo/text/generation_stream',
      '/ml/v1/deployments/demo/text/generation',
    ]);
  });

  it('-o json on a stream prints the aggregated result', async () => {
    const r = await tg(['--input', 'Hi', '--stream', '-o', 'json', '--parameters-max-new-tokens', '6']);
    expect(r.exitCode).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(watsonxTextGenResponseSchema.safeParse(body).success).toBe(true);
    expect(body.results[0].generated_token_count).toBeGreaterThan(0);
    expect(body.results[0].input_token_count).toBeGreaterThan(0);
    expect(body.results[0].stop_reason).not.toBe('not_finished');
  });

  it('an event: error mid-stream keeps the partial text on stdout and exits 6', async () => {
    fixture.server.faults.push({ kind: 'stream-error', afterEvents: 4 });
    const r = await tg(['--input', 'Hi', '--stream', '--parameters-max-new-tokens', '30']);
    expect(r.exitCode).toBe(6);
    expect(r.stdout.trim().length).toBeGreaterThan(0);
    expect(r.stdout.endsWith('\n')).toBe(true);
    expect(r.stderr).toMatch(/^error: watsonx stream broke off/m);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('a malformed event ends the stream with exit 6', async () => {
    fixture.server.faults.push({ kind: 'malformed', afterEvents: 2 });
    const r = await tg(['--input', 'Hi', '--stream']);
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toMatch(/malformed event/);
  });

  it('Ctrl-C aborts, flushes the partial text, writes a newline and exits 130', async () => {
    const slow = await startServer({ requestLog: { max: 1000 }, tokenDelayMs: 50 });
    try {
      const child = execa(
        'node',
        [BIN, '--url', slow.url, ...TG, '--input', 'Hi', '--stream', '--parameters-max-new-tokens', '200'],
        {
          env: { ...home.env, CI: 'true' },
          reject: false,
          stdin: 'ignore',
          stripFinalNewline: false,
        },
      );
      let seen = '';
      await new Promise<void>((resolve) => {
        child.stdout?.on('data', (b: Buffer) => {
          seen += b.toString();
          if (seen.length > 10) resolve();
        });
      });
      child.kill('SIGINT');
      const r = await child;
      expect(r.exitCode).toBe(130);
      expect(r.stdout.startsWith(seen)).toBe(true);
      expect(r.stdout.endsWith('\n')).toBe(true);
      expect(r.stderr).not.toMatch(/at .*\.js/);
    } finally {
      await slow.close();
    }
  });
});

describe('--dry-run and --verbose never show a secret', () => {
  const secret = 'sk-very-secret-api-key-123';

  it('--dry-run prints a curl line and makes no request', async () => {
    const r = await tg(['--input', "it's", '--parameters-max-new-tokens', '5', '--dry-run'], {
      env: { TEXTGEN_API_KEY: secret, TEXTGEN_IAM_URL: `${fixture.server.url}/identity/token` },
    });
    expect(r.exitCode).toBe(0);
    expect(fixture.server.requests).toHaveLength(0);
    expect(r.stdout).toMatch(/^curl .*-X POST '.*\/ml\/v1\/deployments\/demo\/text\/generation\?version=2024-05-01'/);
    expect(r.stdout).toContain('-H "authorization: Bearer ${TEXTGEN_TOKEN}"');
    expect(r.stdout + r.stderr).not.toContain(secret);
    // The line is runnable: bash parses it back to the same body.
    const parsed = await execa('bash', ['-c', `curl() { for a in "$@"; do printf '%s\\n' "$a"; done; }; ${r.stdout}`], {
      env: { TEXTGEN_TOKEN: 'tok' },
    });
    expect(parsed.stdout).toContain('authorization: Bearer tok');
    expect(parsed.stdout).toContain(`{"input":"it's","parameters":{"max_new_tokens":5}}`);
  });

  it("--dry-run on a local profile points at textgen serve's default port instead of starting a server", async () => {
    const r = await runBin(['--profile', 'local-azure', 'complete', 'Hi', '--dry-run'], { env: home.env });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(
      /^curl .* 'http:\/\/127\.0\.0\.1:8080\/openai\/deployments\/gpt-35-turbo-instruct\/completions\?api-version=2022-03-01-preview'/,
    );
    expect(r.stderr).toMatch(/run "textgen serve"/);
  });

  it('-v traces the exchange and the request with secrets redacted', async () => {
    const authed = await startServer({ requestLog: { max: 1000 }, requireAuth: true, apiKeys: [secret] });
    try {
      const r = await runBin(['--url', authed.url, ...TG, '--input', 'Hi', '-v'], {
        env: { ...home.env, TEXTGEN_API_KEY: secret, TEXTGEN_IAM_URL: `${authed.url}/identity/token` },
      });
      expect(r.exitCode).toBe(0);
      expect(r.stderr).toMatch(/> POST .*\/identity\/token/);
      expect(r.stderr).toMatch(/> POST .*\/text\/generation\?version=/);
      expect(r.stderr).toMatch(/authorization: Bearer \*\*\*/);
      expect(r.stderr).not.toContain(secret);
      const issued = authed.requests
        .find((q) => q.path !== '/identity/token')
        ?.headers.authorization?.replace('Bearer ', '');
      expect(issued).toBeTruthy();
      expect(r.stderr).not.toContain(issued as string);
      expectValidWatsonxWire(authed.requests);
    } finally {
      await authed.close();
    }
  });
});
