import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runBin } from '../helpers/run-cli.js';
import { useServer } from '../helpers/server-fixture.js';
import type { RecordedRequest } from '../../src/emulator/core/types.js';

/*
 * A batch's lines go through the lean transport (src/http/lean-transport.ts); under --record they go through the
 * cassette around node:http, as every line did before it. Through the built CLI against `serve`: the same records
 * on stdout, the same summary on stderr, and the same requests on the wire.
 */
const fixture = useServer();
const dir = mkdtempSync(join(tmpdir(), 'textgen-batch-lean-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const LINES = 120;

function args(file: string): string[] {
  return [
    '--provider',
    'azure-openai',
    '--url',
    fixture.server.url,
    '--api-key',
    'lean-key',
    'deployment',
    'text-generate',
    '--id-or-name',
    'demo',
    '--parameters-max-new-tokens',
    '4',
    '--parameters-decoding-method',
    'greedy',
    '--batch',
    file,
    '--concurrency',
    '16',
  ];
}

/** What a record says, without the second it was made in (serve stamps its answers with the clock). */
const records = (stdout: string): unknown[] =>
  stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l.replace(/"created_at":"[^"]*"/, '"created_at":"-"')) as unknown);

/** A request as the server saw it, in line order, with what HTTP lets differ (header case and order) left out. */
const wire = (requests: RecordedRequest[]) =>
  requests
    .filter((r) => r.path.endsWith('/completions'))
    .map((r) => ({
      method: r.method,
      path: r.path,
      query: r.query,
      // A cassette asks for `identity` (it stores answers as they are); every other header is the same.
      headers: Object.fromEntries(
        Object.entries(r.headers)
          .filter(([name]) => name !== 'accept-encoding')
          .sort(([a], [b]) => a.localeCompare(b)),
      ),
      encoding: r.headers['accept-encoding'],
      body: r.body,
    }))
    .sort((a, b) => a.body.localeCompare(b.body));

describe('batch over the lean transport', () => {
  it('gives the records, summary and requests the node:http path gives', async () => {
    const file = join(dir, 'prompts.jsonl');
    writeFileSync(
      file,
      Array.from({ length: LINES }, (_, i) => `${JSON.stringify({ input: `Prompt number ${i + 1}: say ok.` })}\n`).join(
        '',
      ),
    );
    const lean = await runBin(args(file), { env: fixture.home.env, timeout: 60_000 });
    const leanWire = wire(fixture.server.requests);
    fixture.server.requests.length = 0;
    const viaNode = await runBin(['--record', join(dir, 'cassette'), ...args(file)], {
      env: fixture.home.env,
      timeout: 60_000,
    });
    const nodeWire = wire(fixture.server.requests);

    expect(lean.exitCode).toBe(0);
    expect(viaNode.exitCode).toBe(0);
    expect(lean.stderr).toMatch(new RegExp(`^batch: ${LINES} lines processed, ${LINES} succe`));
    const summary = (stderr: string) => stderr.replace(/ in [\d.]+ s \(\d+ lines\/s\)/, '');
    expect(summary(lean.stderr)).toBe(summary(viaNode.stderr));
    expect(records(lean.stdout)).toHaveLength(LINES);
    expect(records(lean.stdout)).toEqual(records(viaNode.stdout));
    expect(leanWire).toHaveLength(LINES);
    // The lean transport writes `host` and `connection` in lower case; the server's log has every name lower-cased.
    expect(leanWire.map((r) => r.encoding)).toEqual(Array(LINES).fill('gzip, deflate, br'));
    expect(leanWire.map(({ encoding: _, ...r }) => r)).toEqual(nodeWire.map(({ encoding: _, ...r }) => r));
  }, 120_000);
});
