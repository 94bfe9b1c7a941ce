import type { CommandSpec, OptionsOf } from '../src/command.js';
import { defineCommand } from '../src/define-command.js';
import type { Context } from '../src/context.js';
import { NetworkError, UsageError } from '../src/contract/errors.js';

const ENGINES = ['deterministic', 'llama'] as const;
const GPU_MODES = ['auto', 'off'] as const;

const spec = {
  path: ['serve'],
  summary: 'Run the embedded local server (all four protocols; deterministic engine, or a GGUF model) until Ctrl-C',
  description:
    'The same server the built-in local profiles start on their own, run in the foreground so that ' +
    'other programs, or textgen with --provider and --url, can reach it. Its engine is deterministic: ' +
    'the same prompt and parameters give the same text. --require-auth makes it check credentials like ' +
    'a real service. --fault queues fault switches (latency, error statuses, busy answers, dropped or ' +
    'stalled connections, malformed events, wrong content types) for the next requests; a running ' +
    'server also takes them from POST /__textgen/faults and, for one request, from the X-Textgen-Fault ' +
    'header. See docs/faults.md. With --engine llama --model FILE.gguf a real model answers every route ' +
    'instead (node-llama-cpp, installed apart: see docs/local-model.md).',
  options: [
    { flags: '--port <port>', description: 'port to listen on (default 8080; 0 = any free port)' },
    { flags: '--host <host>', description: 'address to bind (default 127.0.0.1)' },
    { flags: '--require-auth', description: 'demand credentials: IAM token, CPD token or ZenApiKey' },
    { flags: '--token-delay-ms <ms>', description: 'pause per generated token, to watch streaming (default 0)' },
    {
      flags: '--batch-speed <n>',
      description: 'batch services: emulated seconds per real second (default 600; 86400 runs a 24h window in 1 s)',
    },
    { flags: '--tls-cert <file>', description: 'serve HTTPS with this PEM certificate (chain); needs --tls-key' },
    { flags: '--tls-key <file>', description: 'the PEM private key of --tls-cert' },
    {
      flags: '--fault <spec>',
      description: 'queue a fault, KIND[:key=value,…] (repeatable; ";" joins several), e.g. status:code=503,times=2',
      repeatable: true,
    },
    {
      flags: '--engine <kind>',
      description: 'what answers: deterministic (default) or llama (a GGUF model, --model)',
      choices: ENGINES,
    },
    { flags: '--model <file>', description: 'the GGUF model file the llama engine runs (implies --engine llama)' },
    {
      flags: '--model-name <name>',
      description: "the model's name in every protocol (default: the file name without .gguf)",
    },
    {
      flags: '--threads <n>',
      description: 'llama: CPU threads (default: half the cores); more than the cores is slow',
    },
    {
      flags: '--context-size <n>',
      description: 'llama: tokens per request, prompt plus output (default: the model’s, ≤ 4096)',
    },
    {
      flags: '--gpu <mode>',
      description: 'llama: auto (use a GPU when a binary for it is installed) or off (default)',
      choices: GPU_MODES,
    },
    { flags: '--parallel <n>', description: 'llama: requests generated at once (default 2); more wait their turn' },
    {
      flags: '--upstream <profile>',
      description: 'answer through this profile, not an engine; PROTOCOL=PROFILE for one (repeatable): docs/gateway.md',
      repeatable: true,
    },
    {
      flags: '--on-miss <mode>',
      description: 'with --upstream and --replay DIR: fail (404, the default) or forward (call and record: a cache)',
      choices: ['fail', 'forward'],
    },
    {
      flags: '--ignore-unsupported',
      description: 'with --upstream: drop what the upstream cannot take (X-Textgen-Ignored names it), not 400',
    },
  ],
  examples: [
    'textgen serve --port 8080 --token-delay-ms 50 --require-auth',
    "textgen serve --port 8080 --fault 'status:code=429,retry-after=2' --fault 'drop:after=3'",
    'textgen serve --engine llama --model ./models/qwen2.5-0.5b-instruct-q4_k_m.gguf --threads 2',
  ],
} as const satisfies CommandSpec;

type Tls = { cert: string; key: string };

/** Both flags or neither; each a readable file with the PEM block it is for. */
async function readTls(
  options: Pick<OptionsOf<typeof spec>, 'tlsCert' | 'tlsKey'>,
  cwd: string,
): Promise<Tls | undefined> {
  const certPath = options.tlsCert;
  const keyPath = options.tlsKey;
  if (certPath === undefined && keyPath === undefined) return undefined;
  if (certPath === undefined || keyPath === undefined) {
    throw new UsageError(
      `${certPath === undefined ? '--tls-key' : '--tls-cert'} needs ${certPath === undefined ? '--tls-cert' : '--tls-key'} too`,
      {
        hint: 'give both --tls-cert and --tls-key, or neither for plain HTTP',
      },
    );
  }
  return {
    cert: await readPem('--tls-cert', certPath, cwd, /-----BEGIN CERTIFICATE-----/, 'certificate'),
    key: await readPem('--tls-key', keyPath, cwd, /-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----/, 'private key'),
  };
}

async function readPem(flag: string, file: string, cwd: string, block: RegExp, what: string): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  const { resolve } = await import('node:path');
  let text: string;
  try {
    text = await readFile(resolve(cwd, file), 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EACCES'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'it is a directory'
            : (e as Error).message;
    throw new UsageError(`cannot read ${flag} file ${file}: ${why}`);
  }
  if (!block.test(text)) throw new UsageError(`${flag} file ${file} holds no PEM ${what}`);
  return text;
}

const LLAMA_ONLY = ['--model-name', '--threads', '--context-size', '--gpu', '--parallel'] as const;

/** The engine the flags ask for; a UsageError for a flag that does not fit it. */
async function engineSettings(
  options: OptionsOf<typeof spec>,
  cwd: string,
): Promise<import('../src/contract/local-engine.js').LocalEngineSettings> {
  const engine =
    options.engine === undefined ? (options.model === undefined ? 'deterministic' : 'llama') : options.engine;
  if (engine === 'deterministic') {
    const given: Record<(typeof LLAMA_ONLY)[number] | '--model', string | undefined> = {
      '--model': options.model,
      '--model-name': options.modelName,
      '--threads': options.threads,
      '--context-size': options.contextSize,
      '--gpu': options.gpu,
      '--parallel': options.parallel,
    };
    const stray = (['--model', ...LLAMA_ONLY] as const).find((flag) => given[flag] !== undefined);
    if (stray) throw new UsageError(`${stray} is for --engine llama; the deterministic engine has no model`);
    return { kind: 'deterministic' };
  }
  if (engine !== 'llama') throw new UsageError(`--engine must be ${ENGINES.join(' or ')}, got "${engine}"`);
  if (options.model === undefined)
    throw new UsageError('--engine llama needs --model FILE.gguf', {
      hint: 'any GGUF model file: see docs/local-model.md',
    });
  const gpu = options.gpu;
  if (gpu !== undefined && !(GPU_MODES as readonly string[]).includes(gpu))
    throw new UsageError(`--gpu must be ${GPU_MODES.join(' or ')}, got "${gpu}"`);
  const name = options.modelName;
  if (name !== undefined && name.trim() === '') throw new UsageError('--model-name must not be empty');
  const { resolve } = await import('node:path');
  const { servedModelName } = await import('../src/contract/local-engine.js');
  const { parseIntegerFlag } = await import('../src/options/integer-flag.js');
  const modelPath = resolve(cwd, options.model);
  const positive = (flag: string, value: string | undefined) =>
    value === undefined ? undefined : parseIntegerFlag(flag, value, { min: 1 });
  return {
    kind: 'llama',
    modelPath,
    modelName: name ?? servedModelName(modelPath),
    threads: positive('--threads', options.threads),
    contextSize: positive('--context-size', options.contextSize),
    gpu: gpu as 'auto' | 'off' | undefined,
    parallel: positive('--parallel', options.parallel),
  };
}

async function run(options: OptionsOf<typeof spec>, ctx: Context): Promise<number> {
  const { parseIntegerFlag } = await import('../src/options/integer-flag.js');
  const port = options.port === undefined ? 8080 : parseIntegerFlag('--port', options.port, { min: 0 });
  if (port > 65535) throw new UsageError(`--port must be at most 65535, got ${port}`);
  const tokenDelayMs =
    options.tokenDelayMs === undefined ? 0 : parseIntegerFlag('--token-delay-ms', options.tokenDelayMs, { min: 0 });
  const batchSpeed =
    options.batchSpeed === undefined ? undefined : parseIntegerFlag('--batch-speed', options.batchSpeed, { min: 1 });
  const host = options.host ?? '127.0.0.1';
  const tls = await readTls(options, ctx.cwd);
  const { parseFaultSpec, formatFault, startServer } = await import('../src/emulator/core/index.js');
  const faults = (options.fault ?? []).flatMap((spec) => {
    try {
      return parseFaultSpec(spec);
    } catch (e) {
      throw new UsageError(`--fault ${JSON.stringify(spec)}: ${(e as Error).message}`, {
        hint: 'see docs/faults.md for the fault kinds and their keys',
      });
    }
  });
  const settings = await engineSettings(options, ctx.cwd);
  const cassette = await serveCassette(options, ctx);
  const gateway = await upstreams(options, ctx, cassette);
  if (cassette !== undefined && gateway === undefined)
    throw new UsageError(`serve takes ${cassette.mode === 'record' ? '--record' : '--replay'} with --upstream only`, {
      hint: 'the calls a cassette records are the upstream ones: textgen serve --upstream PROFILE --record DIR',
    });
  const { createEngine } = await import('../src/emulator/engine/create.js');
  const engine = await createEngine(settings);
  // With a cassette, serve's own ids and times are replayable too, so a replay answers byte for byte as recorded.
  const times =
    cassette === undefined
      ? undefined
      : (await import('../src/cassette/front-times.js')).frontTimes(cassette.dir, {
          write: cassette.mode === 'record' || cassette.onMiss === 'forward',
          warn: (m) => ctx.reporter.warn(m),
          ...(cassette.mode === 'replay' ? { run: cassette.run } : {}),
        });
  let server;
  try {
    server = await startServer({
      engine,
      ...(gateway ? { engines: gateway.gateway.engines } : {}),
      host,
      port,
      requireAuth: options.requireAuth === true,
      tokenDelayMs,
      ...(batchSpeed === undefined ? {} : { batchSpeed }),
      ...(tls ? { tls } : {}),
      ...(times ? { replayableAnswers: times } : {}),
      // An upstream answers every family's routes with a tokenizer of its own, loaded only if a route counts locally.
      preloadTokenizer: gateway === undefined,
      log: ctx.reporter.verbose ? (line) => ctx.reporter.trace(line) : undefined,
    });
  } catch (e) {
    await engine.close();
    await gateway?.close();
    // Node's TLS layer rejects a key that does not fit the certificate, or PEM it cannot parse, before listening.
    if (tls && !(e as NodeJS.ErrnoException).syscall) {
      throw new UsageError(`--tls-cert and --tls-key cannot be used together: ${(e as Error).message}`);
    }
    throw new NetworkError(`cannot listen on ${host}:${port}: ${(e as Error).message}`);
  }
  server.faults.push(...faults);
  // Before "listening": a script that waits for that line has the whole picture by then.
  for (const line of gateway?.gateway.describe() ?? []) ctx.reporter.info(`textgen serve: ${line}`);
  ctx.reporter.info(`textgen serve: listening on ${server.url} (Ctrl-C to stop)`);
  if (!isLoopbackHost(host) && options.requireAuth !== true)
    ctx.reporter.warn(
      `textgen serve listens on ${host}, reachable from other machines, and without --require-auth anyone who reaches it is served; add --require-auth, or bind 127.0.0.1`,
    );
  // A watsonx profile exchanges its API key at IBM Cloud unless told otherwise: say where this server's IAM is.
  if (options.requireAuth === true)
    ctx.reporter.info(
      `textgen serve: IAM token URL ${server.url}/identity/token (a watsonx profile's auth.iam_url, or TEXTGEN_IAM_URL)`,
    );
  if (settings.kind === 'llama')
    ctx.reporter.info(`textgen serve: serving ${settings.modelPath} as "${engine.modelName}" (llama engine)`);
  if (faults.length > 0) ctx.reporter.info(`textgen serve: faults queued: ${faults.map(formatFault).join('; ')}`);
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) resolve();
    ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  /*
   * Ctrl-C or SIGTERM (docker stop, systemd, CI) drains: no new connection is taken, and the requests in flight,
   * streams included, get DRAIN_MS to finish before they are cut (a second signal ends it at once). A stop that cut
   * nothing is the stop that was asked for: exit 0, as nginx or a Go server after Shutdown. One that had to cut
   * answers reports it with the signal's exit code (130, 143, 129), so a supervisor can tell clients lost answers.
   */
  ctx.reporter.info(`textgen serve: stopping; requests in flight get up to ${DRAIN_MS / 1000} s to finish`);
  const cut = await server.drain(DRAIN_MS);
  await server.close();
  await gateway?.close();
  await times?.flush();
  if (cut > 0) {
    ctx.reporter.warn(
      `textgen serve: stopped; ${cut} request${cut === 1 ? '' : 's'} still running after ${DRAIN_MS / 1000} s ${cut === 1 ? 'was' : 'were'} cut`,
    );
    // 130 is how a command reports an interruption; the exit code then names the signal that really came.
    return 130;
  }
  ctx.reporter.info('textgen serve: stopped');
  return 0;
}

/**
 * The gateway (src/gateway/), when `--upstream` (or the selected profile's `upstream:` field) names upstreams: their
 * engines, and the transports their calls go through, closed after the server.
 */
/** `--record DIR` / `--replay DIR [--on-miss forward]` (global options) for the upstream calls (src/cassette/). */
async function serveCassette(
  options: OptionsOf<typeof spec>,
  ctx: Context,
): Promise<import('../src/cassette/options.js').CassetteChoice | undefined> {
  const onMiss = options.onMiss ?? 'fail';
  if (onMiss !== 'fail' && onMiss !== 'forward')
    throw new UsageError(`--on-miss must be fail or forward, not "${onMiss}"`);
  const { cassetteChoice } = await import('../src/cassette/options.js');
  const choice = cassetteChoice(ctx.globals, ctx.env, new Date(ctx.now()), { onMiss });
  if (options.onMiss !== undefined && choice?.mode !== 'replay') throw new UsageError('--on-miss needs --replay DIR');
  return choice;
}

async function upstreams(
  options: OptionsOf<typeof spec>,
  ctx: Context,
  cassette: import('../src/cassette/options.js').CassetteChoice | undefined,
): Promise<{ gateway: import('../src/gateway/setup.js').Gateway; close(): Promise<void> } | undefined> {
  const { parseUpstreamFlags, choiceOfField, openGateway } = await import('../src/gateway/setup.js');
  let choice = parseUpstreamFlags(options.upstream ?? []);
  if (Object.keys(choice).length === 0) choice = choiceOfField(await selectedProfileUpstream(ctx));
  if (Object.keys(choice).length === 0) {
    if (options.ignoreUnsupported === true) throw new UsageError('--ignore-unsupported is for --upstream');
    return undefined;
  }
  if (options.engine !== undefined || options.model !== undefined)
    ctx.reporter.info('textgen serve: the protocols without an upstream are answered by the engine');
  const transports: import('../src/http/transport.js').Transport[] = [];
  const gateway = await openGateway(ctx, choice, {
    ignoreUnsupported: options.ignoreUnsupported === true,
    transportFor: async (profile) => {
      const transport = await upstreamTransport(profile, ctx, cassette);
      transports.push(transport);
      return transport;
    },
  });
  return {
    gateway,
    async close() {
      await Promise.all(transports.map((t) => t.destroy()));
    },
  };
}

/**
 * The one place serve builds the Transport an upstream's calls go through (src/http/upstream-transport.ts): one per
 * upstream profile, with its timeouts and TLS settings. Whatever wraps upstream traffic wraps it here.
 */
async function upstreamTransport(
  profile: import('../src/contract/profile.js').ResolvedProfile,
  ctx: Context,
  cassette: import('../src/cassette/options.js').CassetteChoice | undefined,
): Promise<import('../src/http/transport.js').Transport> {
  const { createUpstreamTransport } = await import('../src/http/upstream-transport.js');
  if (cassette !== undefined) {
    // --record / --replay: the cassette wraps the one upstream transport (made only if a call goes out).
    const { cassetteTransport } = await import('../src/cassette/transport.js');
    let real: import('../src/http/transport.js').Transport | undefined;
    const wrapped = cassetteTransport(
      async () => (real ??= await upstreamTransport(profile, ctx, undefined)),
      { ...cassette, protocol: profile.provider, warn: (m) => ctx.reporter.warn(m) },
      ctx.secrets,
    );
    return {
      offline: wrapped.offline === true,
      request: (url, request) => wrapped.request(url, request),
      async destroy() {
        await wrapped.destroy();
        await real?.destroy();
      },
    };
  }
  return createUpstreamTransport({
    timeoutMs: profile.timeoutMs,
    connectTimeoutMs: 10_000,
    ...(profile.tls.caCert ? { caCertPath: profile.tls.caCert } : {}),
    insecure: profile.tls.insecure,
    env: ctx.env,
  });
}

/** The `upstream:` field of the profile serve runs under, when one was selected by name (--profile, TEXTGEN_PROFILE). */
async function selectedProfileUpstream(ctx: Context): Promise<string | Record<string, string | undefined> | undefined> {
  const name = ctx.globals.profile ?? (ctx.env.TEXTGEN_PROFILE || undefined);
  if (name === undefined) return undefined;
  const { loadConfig } = await import('../src/config/load.js');
  const configPath = ctx.globals.config ?? ctx.env.TEXTGEN_CONFIG;
  const config = await loadConfig({
    cwd: ctx.cwd,
    env: ctx.env,
    ...(configPath ? { configPath } : {}),
    warn: (m) => ctx.reporter.warn(m),
  });
  return config.profiles[name]?.upstream;
}

/** How long a stopping server lets requests in flight finish. */
const DRAIN_MS = 5_000;

/** Loopback binds are reachable from this machine only; anything else (0.0.0.0, a LAN address) from others too. */
function isLoopbackHost(host: string): boolean {
  const name = host.replace(/^\[|\]$/g, '').toLowerCase();
  return name === 'localhost' || name === '::1' || /^127\.\d+\.\d+\.\d+$/.test(name);
}

export const command = defineCommand({ spec, helpGroup: 'Setup:', run });
