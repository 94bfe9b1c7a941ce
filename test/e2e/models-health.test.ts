import { afterAll, describe, expect, it } from 'vitest';
import { makeHome, runBin } from '../helpers/run-cli.js';
import { closedPort, json, useTinyServers } from '../helpers/tiny-server.js';
import { FOUNDATION_MODEL_SPECS } from '../../profiles/watsonx/server/model-catalog.js';

/** `models` and `health` through the built binary (run `npm run build` first), against the built-in local profiles. */
const home = makeHome();
const tiny = useTinyServers();
afterAll(() => home.cleanup());

const bin = (args: string[]) => runBin(args, { env: home.env });

describe('models through the binary', () => {
  it('the local profile lists the current foundation model catalog as canonical JSON', async () => {
    const r = await bin(['--profile', 'local', 'models', '--page-size', '5', '-o', 'json']);
    expect(r.exitCode).toBe(0);
    const entries = JSON.parse(r.stdout) as { id: string; kind: string }[];
    expect(entries).toHaveLength(FOUNDATION_MODEL_SPECS.length);
    expect(entries.map((e) => e.id)).toEqual(
      expect.arrayContaining(['ibm/granite-4-h-small', 'ibm/slate-125m-english-rtrvr-v2']),
    );
    expect(entries.every((e) => e.kind === 'model')).toBe(true);
  });

  it('global options after the command words work, as cpd-cli users write them', async () => {
    const r = await bin(['--profile', 'local', 'models', '--deployments', '--output', 'table']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.split('\n')[0]).toMatch(/^ID +MODEL +SERVING NAME +STATUS +DESCRIPTION$/);
    expect(r.stdout).toMatch(/^demo +textgen\/local-demo +demo_serving +ready/m);
  });

  it('an unsupported flag names the provider and exits 2', async () => {
    const r = await bin(['--profile', 'local-aa', 'models', '--deployments']);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      /^error: models --deployments is not supported by aleph-alpha; it works with watsonx, azure-openai$/m,
    );
  });

  it('help lists the command and its flags', async () => {
    const r = await bin(['models', '--help']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/--deployments/);
    expect(r.stdout).toMatch(/--page-size <n>/);
  });
});

describe('health through the binary: exit codes for CI', () => {
  it('healthy: exit 0 and one line', async () => {
    const r = await bin(['--profile', 'local-oip', 'health']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^healthy {2}open-inference {2}http:\/\/127\.0\.0\.1:\d+ {2}version \S+ {2}\d+ ms\n$/);
  });

  it('not ready: exit 4', async () => {
    const t = await tiny((req, res) =>
      req.url === '/v2/health/ready' ? json(res, 503, { ready: false }) : json(res, 200, {}),
    );
    const r = await bin(['--provider', 'open-inference', '--url', t.url, 'health', '-o', 'json']);
    expect(r.exitCode).toBe(4);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'unhealthy', provider: 'open-inference' });
  });

  it('connection refused: exit 5, the verdict still on stdout', async () => {
    const url = await closedPort();
    const r = await bin(['--provider', 'watsonx', '--url', url, '--token', 't', 'health']);
    expect(r.exitCode).toBe(5);
    expect(r.stdout).toMatch(/^unreachable {2}watsonx {2}.*connection refused\n$/);
  });
});
