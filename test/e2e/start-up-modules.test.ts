import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runBin } from '../helpers/run-cli.js';
import { useServer } from '../helpers/server-fixture.js';

/*
 * Start-up is paid on every run (docs/performance.md). Each built-in below costs a request one to three
 * milliseconds and is needed only off its path: a test, so that an eager import cannot creep back unnoticed.
 */
const fixture = useServer();
const tmp = mkdtempSync(join(tmpdir(), 'textgen-modules-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const REPORTER = resolve(import.meta.dirname, '../fixtures/builtin-load-reporter.cjs');

/** The built-ins a run of the built CLI loads (the second run: the first writes the compile cache). */
async function builtinsLoadedBy(args: string[], name: string): Promise<string[]> {
  const list = join(tmp, `${name}.txt`);
  const env = {
    ...fixture.home.env,
    TMPDIR: tmp,
    NODE_OPTIONS: `--require ${REPORTER}`,
    TEXTGEN_TEST_MODULE_LIST: list,
  };
  for (let run = 0; run < 2; run++) {
    const r = await runBin(args, { env });
    expect(r.exitCode, r.stderr).toBe(0);
  }
  return readFileSync(list, 'utf8').split('\n');
}

describe('what a run loads of Node itself', () => {
  it('a whole request: no assert, zlib, perf_hooks, child_process, http2, v8 (no V8 flags without a proxy), nor the ES module loader', async () => {
    const loaded = await builtinsLoadedBy(
      [
        '--provider',
        'azure-openai',
        '--url',
        fixture.server.url,
        '--api-key',
        'test-key',
        'deployment',
        'text-generate',
        '--id-or-name',
        'demo',
        '--input',
        'Hello',
        '--parameters-max-new-tokens',
        '1',
      ],
      'request',
    );
    expect(loaded).toContain('net');
    for (const off of [
      'assert',
      'zlib',
      'perf_hooks',
      'child_process',
      'http2',
      'v8',
      'internal/modules/esm/translators',
    ])
      expect(loaded, off).not.toContain(off);
  });

  it('a watsonx request with a bearer token: no node:crypto (nothing is hashed or exchanged)', async () => {
    const loaded = await builtinsLoadedBy(
      [
        '--provider',
        'watsonx',
        '--url',
        fixture.server.url,
        '--token',
        'test-token',
        'deployment',
        'text-generate',
        '--id-or-name',
        'summarize',
        '--input',
        'Hello',
        '--parameters-max-new-tokens',
        '1',
      ],
      'watsonx',
    );
    expect(loaded).toContain('net');
    expect(loaded).not.toContain('crypto');
  });

  // (net is there: stdout is a pipe, which Node itself opens as a socket.)
  it('--help: no HTTP client nor V8 flags', async () => {
    const loaded = await builtinsLoadedBy(['--help'], 'help');
    for (const off of ['http', 'v8', 'assert', 'zlib', 'child_process', 'internal/modules/esm/translators'])
      expect(loaded, off).not.toContain(off);
  });
});
