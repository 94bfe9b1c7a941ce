import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startRecordingProxy } from '../helpers/recording-proxy.js';
import { runBin, runInProcess } from '../helpers/run-cli.js';
import { useServer } from '../helpers/server-fixture.js';

/*
 * A command line whose words name a command is parsed by the runner bundle without commander
 * (src/cli/quick-parse.ts), so dist/cli.cjs is never read and no cache of it is written; anything commander must
 * answer (help, usage errors) still goes through it. The output is the same either way.
 */
const fixture = useServer();
const tmp = mkdtempSync(join(tmpdir(), 'textgen-quick-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The answer's time stamp is the only thing that differs from run to run. */
const stamp = <R extends { stdout: string }>(r: R): R => ({
  ...r,
  stdout: r.stdout.replace(/"created_at": "[^"]*"/g, '').replace(/^created_at: .*$/gm, ''),
});

/** Runs the built CLI with a compile cache of its own; returns the result and the cache files' bundle names. */
async function run(name: string, args: string[]) {
  const dir = join(tmp, name);
  mkdirSync(dir);
  const env = { ...fixture.home.env, TMPDIR: dir };
  const first = await runBin(args, { env });
  const second = await runBin(args, { env });
  expect(stamp(second)).toEqual(stamp(first));
  const [cacheDir] = readdirSync(dir);
  const bundles =
    cacheDir === undefined ? [] : readdirSync(join(dir, cacheDir)).map((f) => f.replace(/-[0-9a-f]{16}-.*/, ''));
  return { result: first, bundles: [...new Set(bundles)].sort() };
}

const request = (...extra: string[]) => [
  '--provider',
  'watsonx',
  '--url',
  fixture.server.url,
  '--token',
  't',
  'deployment',
  'text-generate',
  '--id-or-name',
  'demo',
  '--input',
  'Hello',
  '--parameters-max-new-tokens',
  '3',
  // The emulator's text is the same for the same seed.
  '--parameters-random-seed',
  '7',
  ...extra,
];

describe('the quick parse through the built CLI', () => {
  it('runs a whole request from the small runner bundle alone, with the output commander would give', async () => {
    for (const [name, args] of [
      ['plain', request()],
      ['json', request('-o', 'json', '--parameters-decoding-method=greedy')],
      ['after', [...request(), '-q', '--no-color']],
    ] as const) {
      const { result, bundles } = await run(name, [...args]);
      expect(result.exitCode, result.stderr).toBe(0);
      expect(stamp(result)).toEqual(stamp(await runInProcess([...args], { env: fixture.home.env })));
      expect(bundles, name).toEqual(['run-generate']);
    }
  });

  it('a local profile reads the emulator from the cold part of the small runner, with the output of the in-process CLI', async () => {
    for (const [name, args] of [
      [
        'local',
        [
          '--profile',
          'local',
          'deployment',
          'text-generate',
          '--id-or-name',
          'demo',
          '--input',
          'Hello',
          '--parameters-random-seed',
          '7',
        ],
      ],
      [
        'local-json',
        [
          '--profile',
          'local',
          '-o',
          'json',
          'deployment',
          'text-generate-stream',
          '--id-or-name',
          'demo',
          '--input',
          'Hi',
          '--parameters-random-seed',
          '3',
        ],
      ],
    ] as const) {
      const { result, bundles } = await run(name, [...args]);
      expect(result.exitCode, result.stderr).toBe(0);
      expect(stamp(result)).toEqual(stamp(await runInProcess([...args], { env: fixture.home.env })));
      expect(bundles, name).toEqual(['run-generate', 'run-generate.emulator']);
    }
  });

  it("another provider's protocol code comes from its own cold part, with the output of the in-process CLI", async () => {
    const generate = (...rest: string[]) => ['deployment', 'text-generate', '--input', 'Hi', ...rest];
    for (const [part, args] of [
      ['openai', ['--provider', 'openai', '--api-key', 'k', ...generate('--id-or-name', 'demo')]],
      ['openai', ['--provider', 'azure-openai', '--api-key', 'k', '-o', 'json', ...generate('--id-or-name', 'demo')]],
      ['aleph-alpha', ['--provider', 'aleph-alpha', '--token', 'k', ...generate('--id-or-name', 'luminous-base')]],
      ['open-inference', ['--provider', 'open-inference', ...generate('--id-or-name', 'demo')]],
    ] as const) {
      const full = [
        '--url',
        fixture.server.url,
        ...args,
        '--parameters-max-new-tokens',
        '3',
        '--parameters-decoding-method',
        'greedy',
      ];
      const { result, bundles } = await run(`part-${args[1]}`, full);
      expect(result.exitCode, result.stderr).toBe(0);
      expect(stamp(result)).toEqual(stamp(await runInProcess(full, { env: fixture.home.env })));
      expect(bundles, args[1]).toEqual(['run-generate', `run-generate.${part}`]);
    }
    // An error the part words is the runner's own error class: the same message and exit code.
    const server = createServer((req, res) => {
      req.resume();
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'no such thing', type: 'invalid_request_error', code: 'nope' } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const failing = ['--provider', 'openai', '--url', `http://127.0.0.1:${port}`, '--api-key', 'k', '--retries', '0'];
      const args = [...failing, ...generate('--id-or-name', 'demo')];
      const { result } = await run('part-error', args);
      expect(result.exitCode).toBe(4);
      expect(result).toEqual(await runInProcess(args, { env: fixture.home.env }));
    } finally {
      server.close();
    }
  });

  it('undici, which only a request through HTTP(S)_PROXY uses, comes from a cold part of its own', async () => {
    const proxy = await startRecordingProxy();
    try {
      const dir = join(tmp, 'proxied');
      mkdirSync(dir);
      const env = { ...fixture.home.env, TMPDIR: dir, HTTP_PROXY: proxy.url };
      const args = [...request(), '-o', 'json'];
      const result = await runBin(args, { env });
      expect(result.exitCode, result.stderr).toBe(0);
      expect(proxy.uses.map((u) => u.kind)).toContain('connect');
      expect(stamp(result)).toEqual(stamp(await runBin(args, { env: { ...fixture.home.env, TMPDIR: dir } })));
      const [cacheDir] = readdirSync(dir);
      const bundles = readdirSync(join(dir, cacheDir!)).map((f) => f.replace(/-[0-9a-f]{16}-.*/, ''));
      // A run that may go through a proxy is parsed by commander (dist/cli.cjs), as src/cli/launch/launch.ts says.
      expect([...new Set(bundles)].sort()).toEqual(['cli', 'run-generate', 'run-generate.undici']);
    } finally {
      await proxy.close();
    }
  });

  it('any other command runs from dist/run.cjs, and also skips the parser bundle', async () => {
    const args = ['--profile', 'local', 'tokenize', '--encoding', 'cl100k_base', '--count', 'hello world'];
    const { result, bundles } = await run('tokenize', args);
    expect(result).toEqual({ exitCode: 0, stdout: '2\n', stderr: '' });
    expect(bundles).toEqual(['run']);
  });

  it('a batch keeps a code cache of its own, so that single requests after it do not deserialise its code', async () => {
    const dir = join(tmp, 'batch-cache');
    mkdirSync(dir);
    const env = { ...fixture.home.env, TMPDIR: dir };
    const prompts = join(tmp, 'prompts.jsonl');
    writeFileSync(prompts, '{"input":"a"}\n{"input":"b"}\n');
    const batch = await runBin(
      ['-q', ...request('--batch', prompts).filter((a, i, all) => a !== 'Hello' && all[i + 1] !== 'Hello')],
      { env },
    );
    expect(batch.exitCode, batch.stderr).toBe(0);
    expect(batch.stdout.trim().split('\n')).toHaveLength(2);
    expect((await runBin(request(), { env })).exitCode).toBe(0);
    const [cacheDir] = readdirSync(dir);
    const files = readdirSync(join(dir, cacheDir as string)).map((f) =>
      f.replace(/-[0-9a-f]{16}-/, '-').replace(/-v\d.*/, ''),
    );
    // The batch code is a part of the runner (the flags are parsed outside it, src/options/batch-settings.ts), and
    // it validates its lines with zod (src/options/schemas.ts), in a part of its own.
    expect(files.sort()).toEqual([
      'run-generate-deployment_text_generate',
      'run-generate-deployment_text_generate_batch',
      'run-generate.batch-deployment_text_generate_batch',
      'run-generate.zod-deployment_text_generate_batch',
    ]);
  });

  it('--record and --replay read the cassette code from a part; a request without them does not', async () => {
    const cassettes = join(tmp, 'cassettes');
    const recorded = await run('record', [...request('-o', 'json'), '--record', cassettes]);
    expect(recorded.result.exitCode, recorded.result.stderr).toBe(0);
    expect(recorded.bundles).toEqual(['run-generate', 'run-generate.cassette']);
    const replayed = await run('replay', [...request('-o', 'json'), '--replay', cassettes]);
    expect(stamp(replayed.result)).toEqual(stamp(recorded.result));
    expect(replayed.bundles).toEqual(['run-generate', 'run-generate.cassette']);
    // A cassette flag that is wrong alone is still the one-line usage error, worded by the part.
    const bad = await runBin([...request(), '--match', 'body'], { env: fixture.home.env });
    expect(bad).toEqual(await runInProcess([...request(), '--match', 'body'], { env: fixture.home.env }));
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/--match needs --record DIR or --replay DIR/);
  });

  it('yaml, zod and jmespath come from parts of their own, read only by a run that uses them', async () => {
    const home = mkdtempSync(join(tmp, 'config-home-'));
    mkdirSync(join(home, 'config', 'textgen'), { recursive: true });
    writeFileSync(
      join(home, 'config', 'textgen', 'config.yaml'),
      `# a comment\nprofiles:\n  fake:\n    provider: watsonx\n    url: ${fixture.server.url}\n    auth: {type: bearer, token_env: FAKE_TOKEN}\n`,
    );
    const env = {
      ...fixture.home.env,
      HOME: home,
      XDG_CONFIG_HOME: join(home, 'config'),
      XDG_CACHE_HOME: join(home, 'cache'),
      FAKE_TOKEN: 't',
    };
    const bundlesOf = async (name: string, args: string[]) => {
      const dir = join(tmp, name);
      mkdirSync(dir);
      const result = await runBin(args, { env: { ...env, TMPDIR: dir } });
      const [cacheDir] = readdirSync(dir);
      const files = cacheDir === undefined ? [] : readdirSync(join(dir, cacheDir));
      return { result, bundles: [...new Set(files.map((f) => f.replace(/-[0-9a-f]{16}-.*/, '')))].sort() };
    };
    // The request above without its ad-hoc provider flags (the first six words): the profile names the service.
    const generate = request().slice(6);
    const withProfile = ['--profile', 'fake', ...generate];
    // The first run parses and validates the file (and, a one-off, writes no code cache: src/contract/
    // code-cache-coverage.ts); the next ones take it from the parsed-config cache and read neither part.
    const first = await bundlesOf('config-first', withProfile);
    expect(first.result.exitCode, first.result.stderr).toBe(0);
    expect(first.bundles).toEqual([]);
    const again = await bundlesOf('config-again', withProfile);
    expect(again.result).toEqual(first.result);
    expect(again.bundles).toEqual(['run-generate']);
    // YAML output is written by the yaml part, a -j query answered by jmespath's. JSON options that are certainly valid need no zod
    // (src/options/plain-parameters.ts); anything else is worded by zod's part, still the one-line usage error.
    for (const [name, extra, parts] of [
      ['yaml-output', ['-o', 'yaml'], ['run-generate.yaml']],
      ['jmes-query', ['-o', 'json', '-j', 'results[0].generated_token_count'], ['run-generate.jmespath']],
      ['json-options', ['--parameters', '{"max_new_tokens": 3, "random_seed": 7}'], []],
      ['json-bad', ['--parameters', '{"bogus": 1}'], ['run-generate.zod']],
    ] as const) {
      // --parameters takes the flags' values itself (the two cannot be mixed).
      const args =
        extra[0] === '--parameters'
          ? ['--profile', 'fake', ...generate.slice(0, 6), ...extra]
          : [...withProfile, ...extra];
      const run = await bundlesOf(name, args);
      expect(stamp(run.result)).toEqual(stamp(await runInProcess(args, { env })));
      expect(run.result.exitCode, name).toBe(name === 'json-bad' ? 2 : 0);
      expect(run.bundles, name).toEqual(['run-generate', ...parts]);
    }
    // A file that fails validation: the error names the field, from the zod part's own checks.
    writeFileSync(join(home, 'config', 'textgen', 'config.yaml'), 'profiles:\n  fake: {provider: nope}\n');
    const invalid = await bundlesOf('config-invalid', withProfile);
    expect(invalid.result.exitCode).toBe(2);
    expect(invalid.result.stderr).toMatch(/profiles\.fake\.provider: expected one of watsonx/);
    expect(invalid.bundles).toEqual(['run-generate', 'run-generate.yaml', 'run-generate.zod']);
  });

  it('usage errors still come from commander: the same one line and exit 2', async () => {
    for (const [name, args] of [
      ['unknown', request('--bogus')],
      ['missing', request('--parameters-top-k')],
      ['excess', request('extra')],
    ] as const) {
      const { result, bundles } = await run(name, [...args]);
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toMatch(/^error: /);
      expect(result).toEqual(await runInProcess([...args], { env: fixture.home.env }));
      expect(bundles).toContain('cli');
    }
  });
});
