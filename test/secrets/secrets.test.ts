import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { startServer, type Fault, type RunningServer } from '../../src/emulator/core/index.js';
import { makeHome, runBin, type CliResult } from '../helpers/run-cli.js';

/**
 * docs/design.md §2 "Secrets": every command, with every credential kind, under -v, --dry-run and forced errors, through
 * the built binary (`npm run build` first). All output and every file the CLI wrote is searched for the secrets,
 * including the tokens the servers issued (learned from what arrived at them).
 */

const SECRET = {
  iamKey: 'iam-apikey-S3CRET-a1b2c3d4',
  cpdPassword: 'cpd-passw0rd-S3CRET-e5f6',
  cpdKey: 'cpd-apikey-S3CRET-g7h8i9',
  zenKey: 'zen-apikey-S3CRET-j0k1l2',
  azureKey: 'azure-key-S3CRET-m3n4o5',
  bearer: 'bearer-token-S3CRET-p6q7r8',
  wrong: 'wrong-key-S3CRET-s9t0u1',
  literal: 'literal-apikey-S3CRET-v2w3x4',
  exposed: 'exposed-apikey-S3CRET-y5z6a7',
  urlPassword: 'url-passw0rd-S3CRET-b8c9d0',
  echoIam: 'echo-iam-apikey-S3CRET-e1f2g3',
  echoAzure: 'echo-azure-key-S3CRET-h4i5j6',
  echoBearer: 'echo/bearer+token-S3CRET-k7l8m9',
  echoZen: 'echo-zen-apikey-S3CRET-n0p1q2',
} as const;
const UNREACHABLE = 'http://127.0.0.1:9';
const SPACE = '0b7f0000-0000-4000-8000-000000000001';

const TG = ['deployment', 'text-generate', '--id-or-name', 'demo', '--input', 'Hi'];
/** A batch whose records land in a file of the home directory (searched like every other file the CLI wrote). */
const BATCH_FILE = 'batch.jsonl';
const TG_BATCH = [
  'deployment',
  'text-generate',
  '--id-or-name',
  'demo',
  '--batch',
  BATCH_FILE,
  '--resume',
  'batch-out.jsonl',
];
const WX_COMMANDS: string[][] = [
  TG,
  [...TG, '--stream'],
  ['complete', '-m', 'ibm/granite-13b-instruct-v2', 'Hi'],
  ['embed', '-m', 'ibm/slate-30m-english-rtrvr', 'Hi'],
  ['tokenize', '-m', 'ibm/granite-13b-instruct-v2', 'Hi'],
  ['detokenize', '--encoding', 'cl100k_base', '1', '2'],
  ['models'],
  ['health'],
  TG_BATCH,
];
const AZURE_COMMANDS: string[][] = [
  TG,
  [...TG, '--stream'],
  ['complete', '-m', 'demo', 'Hi'],
  ['embed', '-m', 'text-embedding-ada-002', 'Hi'],
  ['embed', '-m', 'text-embedding-ada-002', '--batch', BATCH_FILE],
  ['tokenize', '--encoding', 'cl100k_base', 'Hi'],
  ['detokenize', '--encoding', 'cl100k_base', '1', '2'],
  ['models'],
  ['health'],
];
const AA_COMMANDS: string[][] = [
  ['complete', 'Hi'],
  ['complete', '--stream', 'Hi'],
  ['complete', '--batch', BATCH_FILE],
  ['embed', 'Hi'],
  ['tokenize', 'Hi'],
  ['detokenize', '1', '2'],
  ['models'],
  ['health'],
  ['evaluate', '--prompt', 'A', '--expected', ' b'],
  ['explain', '--prompt', 'Rivers carry water.', '--target', ' Water'],
  ['qa', '--query', 'Who?', '--document', 'Ann likes soup.'],
  ['summarize', '--document', 'Rivers carry water.'],
];
/** Online watsonx commands for the kinds that differ from IAM only in how the credential is sent. */
const WX_ONLINE = WX_COMMANDS.filter((c) => c[0] !== 'detokenize');
/** Dry runs print the same request whatever the command: two commands suffice for the extra watsonx kinds. */
const WX_DRY = [TG, WX_COMMANDS[3]!];

interface Kind {
  name: string;
  /** Project config (`.textgenrc.yaml`) for this kind; secrets only by variable name. */
  config?: (url: string) => string;
  /** Words before the command (profile or ad-hoc flags), given the URL to use. */
  prefix: (url: string) => string[];
  env: (url: string) => Record<string, string>;
  /** The same, with the credential replaced by a wrong one. */
  wrong: { prefix?: (url: string) => string[]; env?: (url: string) => Record<string, string> };
  commands: string[][];
  /** Commands also run with --dry-run (default: all of `commands`). */
  dryRun?: string[][];
  /** Also force HTTP 500/401 on `models` (the generation command always gets every forced error). */
  modelsErrors: boolean;
}

const wx = (url: string, auth: string) =>
  `profiles:\n  p:\n    provider: watsonx\n    url: "${url}"\n    space_id: ${SPACE}\n    auth: ${auth}\n`;
const iamAuth = (url: string) => `{ type: iam, apikey_env: S_KEY, iam_url: "${url}/identity/token" }`;

const KINDS: Kind[] = [
  {
    name: 'IAM api key',
    config: (url) => wx(url, iamAuth(url)),
    prefix: () => ['--profile', 'p'],
    env: () => ({ S_KEY: SECRET.iamKey }),
    wrong: { env: () => ({ S_KEY: SECRET.wrong }) },
    commands: WX_COMMANDS,
    modelsErrors: true,
  },
  {
    name: 'IAM api key on the command line',
    prefix: (url) => ['--provider', 'watsonx', '--url', url, '--api-key', SECRET.iamKey],
    env: (url) => ({ TEXTGEN_IAM_URL: `${url}/identity/token`, TEXTGEN_SPACE_ID: SPACE }),
    wrong: { prefix: (url) => ['--provider', 'watsonx', '--url', url, '--api-key', SECRET.wrong] },
    commands: [TG, ['models']],
    modelsErrors: false,
  },
  {
    name: 'CPD password',
    config: (url) => wx(url, '{ type: cpd, username: admin, password_env: S_KEY }'),
    prefix: () => ['--profile', 'p'],
    env: () => ({ S_KEY: SECRET.cpdPassword }),
    wrong: { env: () => ({ S_KEY: SECRET.wrong }) },
    commands: WX_ONLINE,
    dryRun: WX_DRY,
    modelsErrors: true,
  },
  {
    name: 'CPD api key',
    config: (url) => wx(url, '{ type: cpd, username: admin, apikey_env: S_KEY }'),
    prefix: () => ['--profile', 'p'],
    env: () => ({ S_KEY: SECRET.cpdKey }),
    wrong: { env: () => ({ S_KEY: SECRET.wrong }) },
    commands: WX_ONLINE,
    dryRun: WX_DRY,
    modelsErrors: false,
  },
  {
    name: 'ZenApiKey',
    config: (url) => wx(url, '{ type: zenapikey, username: admin, apikey_env: S_KEY }'),
    prefix: () => ['--profile', 'p'],
    env: () => ({ S_KEY: SECRET.zenKey }),
    wrong: { env: () => ({ S_KEY: SECRET.wrong }) },
    commands: WX_ONLINE,
    dryRun: WX_DRY,
    modelsErrors: false,
  },
  {
    name: 'Azure api-key',
    config: (url) =>
      `profiles:\n  p:\n    provider: azure-openai\n    url: "${url}"\n    api_version: "2024-02-01"\n    auth: { type: api-key, key_env: S_KEY }\n`,
    prefix: () => ['--profile', 'p'],
    env: () => ({ S_KEY: SECRET.azureKey }),
    wrong: { env: () => ({ S_KEY: SECRET.wrong }) },
    commands: AZURE_COMMANDS,
    modelsErrors: true,
  },
  {
    name: 'bearer token',
    config: (url) =>
      `profiles:\n  p:\n    provider: aleph-alpha\n    url: "${url}"\n    defaults: { model: luminous-base }\n    auth: { type: bearer, token_env: S_KEY }\n`,
    prefix: () => ['--profile', 'p'],
    env: () => ({ S_KEY: SECRET.bearer }),
    wrong: { env: () => ({ S_KEY: SECRET.wrong }) },
    commands: AA_COMMANDS,
    modelsErrors: true,
  },
  {
    name: 'bearer token on the command line',
    prefix: (url) => ['--provider', 'aleph-alpha', '--url', url, '--token', SECRET.bearer],
    env: () => ({}),
    wrong: { prefix: (url) => ['--provider', 'aleph-alpha', '--url', url, '--token', SECRET.wrong] },
    commands: [['complete', '-m', 'luminous-base', 'Hi'], ['models']],
    modelsErrors: false,
  },
];

interface Run {
  kind: string;
  label: string;
  args: string[];
  result: CliResult;
}

const servers: RunningServer[] = [];
const homes: Array<ReturnType<typeof makeHome> & { kind: string }> = [];
const runs: Run[] = [];
const profileRuns: Run[] = [];
let profilesHome: ReturnType<typeof makeHome>;

const newServer = async () => {
  const server = await startServer({
    requestLog: { max: 1000 },
    requireAuth: true,
    apiKeys: [
      SECRET.iamKey,
      SECRET.cpdKey,
      SECRET.zenKey,
      SECRET.azureKey,
      SECRET.bearer,
      SECRET.literal,
      SECRET.exposed,
    ],
    users: { admin: SECRET.cpdPassword },
  });
  servers.push(server);
  return server;
};

/** One credential kind: its own server and HOME, its runs one after another (faults are a per-server queue). */
async function exercise(kind: Kind): Promise<void> {
  const server = await newServer();
  const home = makeHome();
  homes.push({ ...home, kind: kind.name });
  if (kind.config) writeFileSync(join(home.dir, '.textgenrc.yaml'), kind.config(server.url));
  writeFileSync(join(home.dir, BATCH_FILE), '"Hi"\n{"input": "Ho", "id": "second"}\n');
  const run = async (label: string, args: string[], env: Record<string, string>, fault?: Fault) => {
    server.faults.length = 0;
    if (fault) server.faults.push(fault);
    const result = await runBin(args, { env: { ...home.env, ...env }, cwd: home.dir });
    runs.push({ kind: kind.name, label, args, result });
  };
  const url = server.url;
  for (const command of kind.commands) await run('-v', [...kind.prefix(url), ...command, '-v'], kind.env(url));
  for (const command of kind.dryRun ?? kind.commands)
    await run('--dry-run', [...kind.prefix(url), ...command, '--dry-run'], kind.env(url));
  const generate = kind.commands[0]!;
  const failing = [
    [generate, 'HTTP 500'],
    [generate, 'HTTP 401'],
    [generate, 'wrong credential'],
    [generate, 'unreachable URL'],
  ] as Array<[string[], string]>;
  if (kind.modelsErrors) failing.push([['models'], 'HTTP 500'], [['models'], 'HTTP 401']);
  for (const [command, label] of failing) {
    if (label === 'HTTP 500')
      await run(label, [...kind.prefix(url), ...command, '-v', '--retries', '0'], kind.env(url), {
        kind: 'status',
        status: 500,
      });
    if (label === 'HTTP 401')
      await run(label, [...kind.prefix(url), ...command, '-v'], kind.env(url), { kind: 'status', status: 401 });
    if (label === 'wrong credential')
      await run(
        label,
        [...(kind.wrong.prefix ?? kind.prefix)(url), ...command, '-v'],
        (kind.wrong.env ?? kind.env)(url),
      );
    if (label === 'unreachable URL')
      await run(label, [...kind.prefix(url), ...command, '-v', '--url', UNREACHABLE, '--retries', '0'], kind.env(url));
  }
  server.faults.length = 0;
}

async function exerciseProfiles(): Promise<void> {
  const server = await newServer();
  profilesHome = makeHome();
  const env = { ...profilesHome.env, TEXTGEN_IAM_URL: `${server.url}/identity/token` };
  const run = async (label: string, args: string[]) => {
    const result = await runBin(args, { env, cwd: profilesHome.dir });
    const r = { kind: 'profiles', label, args, result };
    runs.push(r);
    profileRuns.push(r);
  };
  const add = [
    'profiles',
    'add',
    'lit',
    '--provider',
    'watsonx',
    '--url',
    server.url,
    '--auth-type',
    'iam',
    '--api-key',
    SECRET.literal,
  ];
  await run('add --dry-run', [...add, '--dry-run', '-v']);
  await run('add -v (with connection test)', [...add, '-v']);
  await run('add bearer -v', [
    'profiles',
    'add',
    'tok',
    '--provider',
    'aleph-alpha',
    '--url',
    server.url,
    '--token',
    SECRET.bearer,
    '-v',
  ]);
  await Promise.all([
    run('list -v', ['profiles', 'list', '-v']),
    run('list -o json', ['profiles', 'list', '-o', 'json']),
    run('show -v', ['profiles', 'show', 'lit', '-v']),
    run('show -o json', ['profiles', 'show', 'lit', '-o', 'json']),
    run('show -o yaml', ['profiles', 'show', 'tok', '-o', 'yaml']),
  ]);
  await run('use the literal profile -v', ['--profile', 'lit', ...TG, '-v']);
  await run('use the literal profile --dry-run', ['--profile', 'lit', ...TG, '--dry-run']);
}

/**
 * A hostile server that repeats the credential it was sent in every error it gives — as sent, base64 and
 * URL-encoded — and issues IAM tokens, so the exchanged token is echoed too. Whatever textgen prints or writes
 * about these errors (messages, batch records, traces) must mask every form.
 */
const echoSeen: string[] = [];
const echoServers: Server[] = [];
async function startEchoServer(): Promise<string> {
  let issued = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const send = (status: number, body: unknown) => {
        const text = JSON.stringify(body);
        res.writeHead(status, {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(text)),
        });
        res.end(text);
      };
      const path = req.url ?? '';
      if (path.startsWith('/identity/token')) {
        return send(200, {
          access_token: `echo-issued-S3CRET-${++issued}`,
          refresh_token: 'not_supported',
          token_type: 'Bearer',
          expires_in: 3600,
          expiration: Math.floor(Date.now() / 1000) + 3600,
        });
      }
      const header = req.headers.authorization ?? req.headers['api-key'] ?? '';
      const credential = String(header).replace(/^\S+\s+/, '');
      echoSeen.push(String(header), credential);
      const said = `you sent "${header}" (${credential}); base64 ${Buffer.from(credential).toString('base64')}; url ${encodeURIComponent(credential)}; header base64 ${Buffer.from(String(header)).toString('base64')}`;
      if (path.startsWith('/ml/'))
        return send(400, {
          errors: [{ code: 'invalid_request', message: said }],
          trace: 'echo-trace',
          status_code: 400,
        });
      if (path.startsWith('/openai/')) return send(400, { error: { code: 'BadRequest', message: said } });
      return send(400, { error: said, code: 'BAD_REQUEST' });
    });
  });
  echoServers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return `http://127.0.0.1:${address.port}`;
}

async function exerciseEcho(): Promise<void> {
  const url = await startEchoServer();
  const home = makeHome();
  homes.push({ ...home, kind: 'echo' });
  writeFileSync(join(home.dir, BATCH_FILE), '"Hi"\n{"input": "Ho", "id": "second"}\n');
  const passwordUrl = url.replace('http://', `http://admin:${encodeURIComponent(SECRET.urlPassword)}@`);
  writeFileSync(
    join(home.dir, 'echo.yaml'),
    `profiles:\n` +
      `  iam: { provider: watsonx, url: "${url}", space_id: ${SPACE}, auth: { type: iam, apikey: ${SECRET.echoIam}, iam_url: "${url}/identity/token" } }\n` +
      `  zen: { provider: watsonx, url: "${url}", space_id: ${SPACE}, auth: { type: zenapikey, username: admin, apikey: ${SECRET.echoZen} } }\n` +
      `  azure: { provider: azure-openai, url: "${url}", api_version: "2024-02-01", auth: { type: api-key, key: "${SECRET.echoAzure}" } }\n` +
      `  aa: { provider: aleph-alpha, url: "${url}", defaults: { model: luminous-base }, auth: { type: bearer, token: "${SECRET.echoBearer}" } }\n` +
      `  pw: { provider: open-inference, url: "${passwordUrl}", defaults: { model: demo } }\n`,
  );
  chmodSync(join(home.dir, 'echo.yaml'), 0o600);
  const run = async (label: string, args: string[]) => {
    const result = await runBin(['--config', 'echo.yaml', ...args], { env: home.env, cwd: home.dir });
    runs.push({ kind: 'echo', label, args, result });
  };
  const generate: Record<string, string[]> = {
    iam: TG,
    zen: TG,
    azure: ['complete', '-m', 'demo', 'Hi'],
    aa: ['complete', 'Hi'],
    pw: ['complete', 'Hi'],
  };
  // One chain per profile (the echo server keeps no state), so this adds no more wall time than one credential kind.
  await Promise.all([
    ...Object.entries(generate).map(async ([profile, command]) => {
      const batch = command.filter((w) => w !== 'Hi' && w !== '--input');
      await run('echoed in the error', ['--profile', profile, ...command, '--retries', '0']);
      await run('echoed, -v', ['--profile', profile, ...command, '--retries', '0', '-v']);
      await run('echoed into batch records', ['--profile', profile, ...batch, '--batch', BATCH_FILE, '--retries', '0']);
      await run('echoed into a --resume file', [
        '--profile',
        profile,
        ...batch,
        '--batch',
        BATCH_FILE,
        '--resume',
        `echo-${profile}.jsonl`,
        '--retries',
        '0',
      ]);
    }),
    (async () => {
      await run('models, echoed', ['--profile', 'iam', 'models']);
      await run('--dry-run with a password in the url', ['--profile', 'pw', 'complete', 'Hi', '--dry-run']);
      await run('profiles show, a password in the url', ['profiles', 'show', 'pw']);
      await run('profiles show -o json, a password in the url', ['profiles', 'show', 'pw', '-o', 'json']);
      await run('profiles list, a password in the url', ['profiles', 'list']);
      await run('profiles list -o yaml, a password in the url', ['profiles', 'list', '-o', 'yaml']);
    })(),
  ]);
}

/** Every file under dir, recursively. */
function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)],
  );
}

/** Secret values, plus every credential that reached a server (issued tokens, ZenApiKey encodings). */
function learnSecrets(): { all: Map<string, string>; issued: Set<string> } {
  const all = new Map<string, string>(Object.entries(SECRET).map(([name, value]) => [value, name]));
  const issued = new Set<string>();
  for (const server of servers) {
    for (const r of server.requests) {
      const auth = r.headers.authorization?.trim().split(/\s+/, 2);
      if (auth?.[1] && !all.has(auth[1])) {
        all.set(auth[1], `${auth[0]} credential seen by the server`);
        if (auth[0]!.toLowerCase() === 'bearer') issued.add(auth[1]);
      }
      const apiKey = r.headers['api-key'];
      if (apiKey && !all.has(apiKey)) all.set(apiKey, 'api-key header seen by the server');
    }
  }
  for (const seen of echoSeen) {
    if (seen === '' || all.has(seen)) continue;
    all.set(seen, 'credential the echo server was sent');
    if (seen.startsWith('echo-issued-')) issued.add(seen);
  }
  // A secret may also leak encoded: in a URL, or base64 as in a Basic or ZenApiKey header.
  for (const [value, name] of [...all]) {
    for (const [form, how] of [
      [encodeURIComponent(value), 'URL-encoded'],
      [Buffer.from(value).toString('base64'), 'base64'],
    ] as const) {
      if (form !== value && !all.has(form)) {
        all.set(form, `${name} (${how})`);
        if (issued.has(value)) issued.add(form);
      }
    }
  }
  return { all, issued };
}

// The chains run side by side with the rest of `npm test` on two cores: generous, so load is not a failure.
const TIMEOUT = 240_000;

beforeAll(async () => {
  // Each chain is sequential inside (one server, one HOME); the chains run side by side.
  await Promise.all([exerciseProfiles(), exerciseEcho(), ...KINDS.map(exercise)]);
}, TIMEOUT);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await Promise.all(
    echoServers.map(
      (s) =>
        new Promise<void>((done) => {
          s.closeAllConnections();
          s.close(() => done());
        }),
    ),
  );
  for (const h of homes) h.cleanup();
  profilesHome?.cleanup();
});

describe('secrets never leak (docs/design.md §2)', () => {
  it('appear in no stdout, stderr or written file, for every command, credential kind, -v, --dry-run and forced error', () => {
    const { all, issued } = learnSecrets();
    expect([...issued].length, 'the servers issued tokens (IAM and CPD exchanges ran)').toBeGreaterThan(0);
    const leaks: string[] = [];
    let bytes = 0;
    const search = (text: string, where: string, skip: Set<string> = new Set()) => {
      bytes += Buffer.byteLength(text);
      for (const [value, name] of all) if (!skip.has(value) && text.includes(value)) leaks.push(`${where}: ${name}`);
    };
    for (const r of runs) {
      const line = `[${r.kind}, ${r.label}] textgen ${r.args.join(' ')}`;
      search(r.result.stdout, `${line} → stdout`);
      search(r.result.stderr, `${line} → stderr`);
    }
    const tokenFiles: string[] = [];
    for (const h of [...homes, { ...profilesHome, kind: 'profiles' }]) {
      for (const file of walk(h.dir)) {
        const rel = relative(h.dir, file);
        if (rel === '.textgenrc.yaml') continue; // written by this test, names variables only
        if (h.kind === 'echo' && rel === 'echo.yaml') continue; // written by this test, holds the literal secrets by design
        if (h.kind === 'profiles' && rel === join('config', 'textgen', 'config.yaml')) {
          // The user file legitimately holds the literal secrets: only its mode matters (checked below).
          continue;
        }
        const text = readFileSync(file, 'utf8');
        if (rel.startsWith(join('cache', 'textgen') + '/')) {
          tokenFiles.push(file);
          expect(statSync(file).mode & 0o777, `${h.kind}: ${rel} mode`).toBe(0o600);
          search(text, `[${h.kind}] file ${rel}`, issued); // the token cache holds its token by design
        } else search(text, `[${h.kind}] file ${rel}`);
      }
    }
    expect(tokenFiles.length, 'IAM and CPD runs cached tokens').toBeGreaterThan(0);
    // The summary the issue asks for: how much was looked at.
    console.log(
      `secrets: ${runs.length} command runs, ${bytes} bytes searched (output + ${tokenFiles.length} token cache files + other files), ${all.size} secret values, ${leaks.length} leaks`,
    );
    expect(leaks, `secrets leaked:\n${leaks.join('\n')}`).toEqual([]);
  });

  it('the runs really exercised success and failure: every -v run succeeds, forced errors give their exit codes', () => {
    const failed = runs
      .filter((r) => r.label === '-v' && r.result.exitCode !== 0)
      .map((r) => `[${r.kind}] textgen ${r.args.join(' ')} → ${r.result.exitCode}: ${r.result.stderr.slice(-300)}`);
    expect(failed, 'every -v run succeeds').toEqual([]);
    const codes = new Set(runs.filter((r) => r.label === 'wrong credential').map((r) => r.result.exitCode));
    expect(codes.has(3), 'a wrong credential gives an auth error somewhere').toBe(true);
    const generationFaults = (label: string) =>
      new Set(
        runs
          .filter((r) => r.label === label && (r.args.includes('demo') || r.args.includes('complete')))
          .map((r) => r.result.exitCode),
      );
    expect(generationFaults('HTTP 500').has(4), 'a forced 500 on generation gives exit 4').toBe(true);
    expect(generationFaults('HTTP 401').has(3), 'a forced 401 on generation gives exit 3').toBe(true);
    const unreachable = runs.filter((r) => r.label === 'unreachable URL' && r.result.exitCode === 5);
    expect(unreachable.length).toBeGreaterThan(0);
  });

  it("the echoing server's errors reached the user, masked: exit 4 and the error line with *** where the credential was", () => {
    const echoed = runs.filter((r) => r.kind === 'echo' && r.label === 'echoed in the error');
    expect(echoed.length).toBe(5);
    for (const r of echoed) {
      expect(r.result.exitCode, r.result.stderr).toBe(4);
      expect(r.result.stderr).toMatch(/^error: .*you sent/m);
    }
    // Every run shows the mask where the credential was; the password URL's is the Basic auth built from it.
    expect(echoed.filter((r) => /you sent "[^"]*\*\*\*/.test(r.result.stderr))).toHaveLength(5);
    const records = runs.filter((r) => r.kind === 'echo' && r.label === 'echoed into batch records');
    for (const r of records)
      expect(
        r.result.stdout
          .split('\n')
          .filter(Boolean)
          .map((l) => (JSON.parse(l) as { error?: { exit_code: number } }).error?.exit_code),
      ).toEqual([4, 4]);
    const show = runs.find((r) => r.kind === 'echo' && r.label === 'profiles show -o json, a password in the url')!;
    expect((JSON.parse(show.result.stdout) as { url: string }).url).toMatch(/^http:\/\/admin:\*\*\*@127\.0\.0\.1:\d+$/);
  });

  it('profiles add --api-key/--token writes the user file 0600 and never prints the literal back', () => {
    const file = join(profilesHome.env.XDG_CONFIG_HOME, 'textgen', 'config.yaml');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain(SECRET.literal);
    expect(text).toContain(SECRET.bearer);
    const added = profileRuns.find((r) => r.label === 'add -v (with connection test)')!;
    expect(added.result.exitCode, added.result.stderr).toBe(0);
    const show = profileRuns.find((r) => r.label === 'show -o json')!;
    expect(JSON.parse(show.result.stdout)).toMatchObject({ name: 'lit', auth: { type: 'iam', apikey: '***' } });
  });
});

describe('a user config with a literal secret', () => {
  const literalKey = `    url: "${UNREACHABLE}"\n    auth: { type: iam, apikey: ${SECRET.exposed} }\n`;
  // A password in the url is a literal secret too.
  const urlPassword = `    url: "http://admin:${SECRET.exposed}@127.0.0.1:9"\n    auth: { type: none }\n`;
  it.each([
    [0o644, true, 'an API key', literalKey],
    [0o600, false, 'an API key', literalKey],
    [0o644, true, 'a password in the url', urlPassword],
    [0o600, false, 'a password in the url', urlPassword],
  ])('mode %o → warning on stderr: %s (%s)', async (mode, warns, _what, profile) => {
    const home = makeHome();
    try {
      const dir = join(home.env.XDG_CONFIG_HOME, 'textgen');
      mkdirSync(dir, { recursive: true });
      const file = join(dir, 'config.yaml');
      writeFileSync(file, `profiles:\n  wx:\n    provider: watsonx\n${profile}`);
      chmodSync(file, mode);
      const r = await runBin(['--profile', 'wx', ...TG, '--dry-run'], { env: home.env, cwd: home.dir });
      const warning =
        /^warning: .*config\.yaml holds a secret and is readable by others; run chmod 600 .*config\.yaml$/m;
      if (warns) expect(r.stderr).toMatch(warning);
      else expect(r.stderr).not.toMatch(/readable by others/);
      expect(r.stdout + r.stderr).not.toContain(SECRET.exposed);
    } finally {
      home.cleanup();
    }
  });
});

describe("a token cache directory that is not textgen's", () => {
  it("a symlinked $XDG_CACHE_HOME/textgen keeps its link and its target's mode (1777); the token file inside is 0600", async () => {
    const server = await newServer();
    const home = makeHome();
    try {
      const shared = join(home.dir, 'shared-cache');
      mkdirSync(shared);
      chmodSync(shared, 0o1777);
      mkdirSync(home.env.XDG_CACHE_HOME, { recursive: true });
      symlinkSync(shared, join(home.env.XDG_CACHE_HOME, 'textgen'));
      writeFileSync(join(home.dir, '.textgenrc.yaml'), wx(server.url, iamAuth(server.url)));
      const r = await runBin(['--profile', 'p', ...TG], { env: { ...home.env, S_KEY: SECRET.iamKey }, cwd: home.dir });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(lstatSync(join(home.env.XDG_CACHE_HOME, 'textgen')).isSymbolicLink()).toBe(true);
      expect(statSync(shared).mode & 0o7777).toBe(0o1777);
      const cached = readdirSync(shared);
      expect(cached).toHaveLength(1);
      expect(statSync(join(shared, cached[0]!)).mode & 0o777).toBe(0o600);
    } finally {
      home.cleanup();
    }
  });
});
