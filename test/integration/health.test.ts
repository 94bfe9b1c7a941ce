import { describe, expect, it } from 'vitest';
import { alephAlphaHealth } from '../../profiles/aleph-alpha/client/health.js';
import { packageVersion } from '../../src/version.js';
import {
  healthExitCode,
  healthLine,
  healthProfile,
  HEALTH_TIMEOUT_MS,
  type HealthReport,
} from '../../src/flows/health.js';
import { testProfile } from '../helpers/profile.js';
import { closedPort, json, useTinyServers } from '../helpers/tiny-server.js';
import { useAuthedServer, type Kind } from '../helpers/authed-cli.js';
import { runInProcess } from '../helpers/run-cli.js';

const KEY = 'health-test-key-0123';
const { fixture, run } = useAuthedServer(KEY);
const { home } = fixture;
const tiny = useTinyServers();

function health(kind: Kind, args: string[] = [], opts: { url?: string; env?: Record<string, string> } = {}) {
  return run(kind, ['health', ...args], opts);
}

/** The report with its timings checked and blanked, so the rest can be compared exactly. */
function untimed(stdout: string): HealthReport {
  const report = JSON.parse(stdout) as HealthReport;
  expect(report.latency_ms).toBeGreaterThanOrEqual(0);
  let sum = 0;
  for (const c of report.checks) {
    expect(typeof c.latency_ms).toBe('number');
    sum += c.latency_ms;
    c.latency_ms = 0;
  }
  expect(report.latency_ms).toBe(sum);
  report.latency_ms = 0;
  return report;
}

const ok = (name: string, method: string, path: string) => ({
  name,
  method,
  path,
  http_status: 200,
  ok: true,
  latency_ms: 0,
});

describe("health: each provider's cheapest real check, healthy", () => {
  it.each<[Kind, Record<string, string>, string[], Partial<HealthReport>]>([
    [
      'watsonx',
      {},
      ['GET /ml/v1/foundation_model_specs?version=2024-05-01&limit=1'],
      { api_version: '2024-05-01', checks: [ok('models', 'GET', '/ml/v1/foundation_model_specs')] },
    ],
    [
      'watsonx',
      { TEXTGEN_SPACE_ID: 'sp' },
      ['GET /ml/v4/deployments?version=2024-05-01&space_id=sp&limit=1'],
      { api_version: '2024-05-01', checks: [ok('deployments', 'GET', '/ml/v4/deployments')] },
    ],
    [
      'azure-openai',
      {},
      ['GET /openai/deployments?api-version=2022-12-01'],
      { api_version: '2022-12-01', checks: [ok('deployments', 'GET', '/openai/deployments')] },
    ],
    ['openai', {}, ['GET /v1/models'], { checks: [ok('models', 'GET', '/v1/models')] }],
    ['aleph-alpha', {}, ['GET /version'], { version: '1.16.1', checks: [ok('version', 'GET', '/version')] }],
    [
      'open-inference',
      {},
      ['GET /v2/health/live', 'GET /v2/health/ready', 'GET /v2'],
      {
        version: packageVersion(),
        checks: [
          ok('live', 'GET', '/v2/health/live'),
          ok('ready', 'GET', '/v2/health/ready'),
          ok('metadata', 'GET', '/v2'),
        ],
      },
    ],
  ])('%s %j: exit 0, the probes sent with credentials, the report', async (kind, env, sent, expected) => {
    const r = await health(kind, ['-o', 'json'], { env });
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const probes = fixture.server.requests.filter((q) => q.path !== '/identity/token');
    expect(
      probes.map(
        (q) => `${q.method} ${q.path}${Object.keys(q.query).length ? `?${new URLSearchParams(q.query)}` : ''}`,
      ),
    ).toEqual(sent);
    for (const q of probes) {
      if (kind === 'azure-openai') expect(q.headers['api-key']).toBe(KEY);
      else expect(q.headers.authorization).toMatch(/^Bearer \S+$/);
    }
    expect(untimed(r.stdout)).toStrictEqual({
      status: 'healthy',
      provider: kind,
      url: fixture.server.url,
      ...(expected.version !== undefined ? { version: expected.version } : {}),
      ...(expected.api_version !== undefined ? { api_version: expected.api_version } : {}),
      latency_ms: 0,
      checks: expected.checks,
    });
  });

  it.each<[Kind, RegExp]>([
    ['watsonx', /^healthy {2}watsonx {2}http:\/\/127\.0\.0\.1:\d+ {2}api-version 2024-05-01 {2}\d+ ms\n$/],
    ['aleph-alpha', /^healthy {2}aleph-alpha {2}http:\/\/127\.0\.0\.1:\d+ {2}version 1\.16\.1 {2}\d+ ms\n$/],
    ['openai', /^healthy {2}openai {2}http:\/\/127\.0\.0\.1:\d+ {2}\d+ ms\n$/],
  ])('%s: text output is one line', async (kind, line) => {
    const r = await health(kind);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(line);
  });

  it('-j picks from the report; --raw-output prints a string bare', async () => {
    const r = await health('aleph-alpha', ['-j', 'status', '--raw-output']);
    expect(r.stdout).toBe('healthy\n');
  });
});

describe('health: unhealthy (exit 4)', () => {
  const oip = (statuses: Record<string, number>) =>
    tiny((req, res) => {
      const status = statuses[req.url ?? ''] ?? 200;
      if (status === 200)
        json(res, 200, req.url === '/v2' ? { name: 'triton', version: '2.47.0', extensions: [] } : {});
      else {
        // Readiness failures often come with an empty body: the status is the answer.
        res.writeHead(status, { 'content-length': '0' });
        res.end();
      }
    });

  it.each([[503], [400]])('Open Inference not ready (%i): unhealthy, with every probe reported', async (status) => {
    const t = await oip({ '/v2/health/ready': status });
    const r = await health('open-inference', ['-o', 'json'], { url: t.url });
    expect(r.exitCode).toBe(4);
    const report = untimed(r.stdout);
    expect(report.status).toBe('unhealthy');
    expect(report.version).toBe('2.47.0');
    expect(report.message).toMatch(new RegExp(`^ready: open-inference returned HTTP ${status}`));
    expect(report.checks.map((c) => [c.name, c.http_status, c.ok])).toEqual([
      ['live', 200, true],
      ['ready', status, false],
      ['metadata', 200, true],
    ]);
  });

  it('Open Inference not live: unhealthy in text, the reason on the line', async () => {
    const t = await oip({ '/v2/health/live': 503, '/v2/health/ready': 503 });
    const r = await health('open-inference', [], { url: t.url });
    expect(r.exitCode).toBe(4);
    expect(r.stdout).toMatch(
      /^unhealthy {2}open-inference {2}http:\/\/127\.0\.0\.1:\d+ {2}version 2\.47\.0 {2}\d+ ms {2}live: open-inference returned HTTP 503/,
    );
  });

  it('Open Inference metadata failing only costs the version', async () => {
    const t = await oip({ '/v2': 500 });
    const r = await health('open-inference', ['-o', 'json'], { url: t.url });
    expect(r.exitCode).toBe(0);
    const report = untimed(r.stdout);
    expect(report.version).toBeUndefined();
    expect(report.checks[2]).toMatchObject({ name: 'metadata', http_status: 500, ok: false });
  });

  it.each<[Kind, string]>([
    ['watsonx', '/ml/v1/foundation_model_specs'],
    ['azure-openai', '/openai/deployments'],
    ['openai', '/v1/models'],
    ['aleph-alpha', '/version'],
  ])('%s: a 503 is unhealthy, asked once (no retries by default)', async (kind, path) => {
    const t = await tiny((_req, res) => {
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after-ms': '1' });
      res.end('{"error":"busy"}');
    });
    const r = await runInProcess(['--provider', kind, '--url', t.url, 'health', '-o', 'json'], { env: home.env });
    expect(r.exitCode).toBe(4);
    expect(t.seen).toHaveLength(1);
    expect(t.seen[0]).toMatch(new RegExp(`^GET ${path.replace(/\//g, '\\/')}`));
    const report = untimed(r.stdout);
    expect(report.status).toBe('unhealthy');
    expect(report.checks[0]).toMatchObject({ http_status: 503, ok: false });
  });

  it('--retries is honoured when given', async () => {
    const t = await tiny((_req, res) => {
      res.writeHead(503, { 'retry-after-ms': '1', 'content-length': '0' });
      res.end();
    });
    const r = await runInProcess(['--provider', 'openai', '--url', t.url, 'health', '--retries', '2'], {
      env: home.env,
    });
    expect(r.exitCode).toBe(4);
    expect(t.seen).toHaveLength(3);
  });
});

describe('health: credentials refused (exit 3)', () => {
  it.each<[Kind, string[]]>([
    ['azure-openai', ['--api-key', 'wrong']],
    ['openai', ['--token', 'wrong']],
    ['watsonx', ['--token', 'wrong']],
  ])('%s: a 401 on the check is unhealthy with exit 3 and a hint', async (kind, credential) => {
    const r = await runInProcess(
      ['--provider', kind, '--url', fixture.server.url, ...credential, 'health', '-o', 'json'],
      { env: home.env },
    );
    expect(r.exitCode).toBe(3);
    const report = untimed(r.stdout);
    expect(report.status).toBe('unhealthy');
    expect(report.message).toMatch(new RegExp(`^\\w+: ${kind} returned HTTP 401`));
    expect(r.stderr).toMatch(/hint: check the profile's credentials/);
  });

  it('Aleph Alpha: /version is open, as on the service, so the check says nothing of the token', async () => {
    const r = await runInProcess(
      ['--provider', 'aleph-alpha', '--url', fixture.server.url, '--token', 'wrong', 'health'],
      { env: home.env },
    );
    expect(r.exitCode).toBe(0);
  });

  it('watsonx: a refused API key at the token exchange is exit 3, before any probe', async () => {
    const r = await runInProcess(['--provider', 'watsonx', '--url', fixture.server.url, 'health', '-o', 'json'], {
      env: { ...home.env, TEXTGEN_API_KEY: 'not-a-key', TEXTGEN_IAM_URL: `${fixture.server.url}/identity/token` },
    });
    expect(r.exitCode).toBe(3);
    const report = untimed(r.stdout);
    expect(report).toMatchObject({ status: 'unhealthy', checks: [] });
    expect(report.message).toMatch(/BXNIM0415E|could not be found/);
    expect(fixture.server.requests.map((q) => q.path)).toEqual(['/identity/token']);
  });
});

describe('health: unreachable (exit 5)', () => {
  it.each<Kind>(['watsonx', 'azure-openai', 'openai', 'aleph-alpha', 'open-inference'])(
    '%s: connection refused',
    async (kind) => {
      const url = await closedPort();
      const r = await runInProcess(['--provider', kind, '--url', url, '--token', 'x', 'health', '-o', 'json'], {
        env: home.env,
      });
      expect(r.exitCode).toBe(5);
      const report = untimed(r.stdout);
      expect(report.status).toBe('unreachable');
      expect(report.message).toMatch(/connection refused/);
      // Nothing answers: the first probe's failure ends the check.
      expect(report.checks).toHaveLength(1);
      expect(report.checks[0]).toMatchObject({ ok: false });
      expect(report.checks[0]).not.toHaveProperty('http_status');
    },
  );

  it('an endpoint that never answers is unreachable after --timeout', async () => {
    const t = await tiny(() => {
      // Never answers; the client gives up.
    });
    const r = await runInProcess(['--provider', 'aleph-alpha', '--url', t.url, 'health', '--timeout', '200'], {
      env: home.env,
    });
    expect(r.exitCode).toBe(5);
    expect(r.stdout).toMatch(/^unreachable {2}aleph-alpha {2}.* ms {2}.*(timed out|timeout)/i);
  });
});

describe('health --dry-run', () => {
  it.each<[Kind, string[]]>([
    ['open-inference', ['/v2/health/live', '/v2/health/ready', '/v2']],
    ['aleph-alpha', ['/version']],
    ['watsonx', ['/ml/v1/foundation_model_specs?version=2024-05-01&limit=1']],
  ])('%s: one curl line per probe, nothing sent', async (kind, paths) => {
    const r = await runInProcess(['--provider', kind, '--url', fixture.server.url, 'health', '--dry-run'], {
      env: { ...home.env, TEXTGEN_TOKEN: KEY },
    });
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.map((l) => /'(http[^']+)'/.exec(l)?.[1])).toEqual(paths.map((p) => `${fixture.server.url}${p}`));
    expect(r.stdout).not.toContain(KEY);
    expect(fixture.server.requests).toHaveLength(0);
  });
});

describe('health policy', () => {
  it.each<[{ retries?: string; timeout?: string }, number, number, number, number]>([
    [{}, 2, 300_000, 0, HEALTH_TIMEOUT_MS],
    [{}, 2, 5_000, 0, 5_000],
    [{ retries: '3' }, 3, 300_000, 3, HEALTH_TIMEOUT_MS],
    [{ timeout: '120000' }, 2, 120_000, 0, 120_000],
  ])(
    'flags %j with profile retries %i and timeout %i → retries %i, timeout %i',
    (flags, retries, timeoutMs, wantRetries, wantTimeout) => {
      const p = healthProfile(testProfile({ retries, timeoutMs }), flags);
      expect([p.retries, p.timeoutMs]).toEqual([wantRetries, wantTimeout]);
    },
  );

  const report = (status: HealthReport['status']): HealthReport => ({
    status,
    provider: 'p',
    url: 'u',
    latency_ms: 1,
    checks: [],
  });
  it.each<[HealthReport['status'], boolean, number]>([
    ['healthy', false, 0],
    ['unhealthy', false, 4],
    ['unhealthy', true, 3],
    ['unreachable', false, 5],
    ['unreachable', true, 5],
  ])('%s (credentials refused: %s) exits %i', (status, refused, code) => {
    expect(healthExitCode(report(status), refused)).toBe(code);
  });

  it('the text line carries version, api version, latency and the reason, in that order', () => {
    expect(
      healthLine({
        status: 'unhealthy',
        provider: 'watsonx',
        url: 'http://h',
        version: '1',
        api_version: '2024-05-01',
        latency_ms: 12,
        message: 'models: boom',
        checks: [],
      }),
    ).toBe('unhealthy  watsonx  http://h  version 1  api-version 2024-05-01  12 ms  models: boom\n');
  });

  it.each([
    ['1.16.1\n', '1.16.1'],
    ['<html><body>Bad gateway</body></html>', undefined],
    ['', undefined],
  ])('Aleph Alpha version from %j', (text, version) => {
    const probe = alephAlphaHealth.probes(testProfile({ provider: 'aleph-alpha' }))[0]!;
    expect(probe.version?.(text)).toBe(version);
  });
});
