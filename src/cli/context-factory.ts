import type { CommandSpec } from '../command.js';
import type { Authenticator } from '../contract/adapter.js';
import type { Context, OutputChoice, Terminal } from '../context.js';
import { parseOutputFormat } from '../output/format.js';
import type { ResolvedProfile } from '../contract/profile.js';
import type { GlobalOptions } from '../global-options.js';
import type { HttpClient } from '../contract/http.js';
import type { TokenCache } from '../contract/token-cache.js';
import { createReporter } from '../reporter.js';
import { createDataSink } from '../output/safe-write.js';
import { colorLevel } from '../output/color.js';
import { KnownSecrets } from '../contract/redact.js';
import type { CassetteChoice } from '../cassette/options.js';

export interface ProcessLike {
  env: Record<string, string | undefined>;
  cwd: string;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

export function detectTerminal(io: ProcessLike, globals: GlobalOptions): Terminal {
  const stdoutIsTTY = io.stdout.isTTY === true;
  const stderrIsTTY = io.stderr.isTTY === true;
  const ci = io.env.CI !== undefined && io.env.CI !== '' && io.env.CI !== 'false' && io.env.CI !== '0';
  const level = colorLevel({ env: io.env, isTTY: stderrIsTTY, ...(globals.color === false ? { flag: false } : {}) });
  // Node builds process.stdin on first use (a file or socket stream: a few ms). A command that gets its input from
  // flags, in CI or with stderr in a pipe, never needs to know whether stdin is a terminal (docs/performance.md).
  let stdinIsTTY: boolean | undefined;
  const stdinTTY = () => (stdinIsTTY ??= io.stdin.isTTY === true);
  return {
    get stdinIsTTY() {
      return stdinTTY();
    },
    stdoutIsTTY,
    stderrIsTTY,
    get interactive() {
      return stderrIsTTY && !ci && globals.interactive !== false && stdinTTY();
    },
    color: level > 0,
    colorLevel: level,
  };
}

/**
 * Builds the Context a command runs with. Heavy pieces (config loading, undici, the embedded server) are created on
 * first use, so commands that never touch the network stay fast; the embedded server only when a command connects
 * to a local profile.
 */
export function createContext(
  io: ProcessLike,
  globals: GlobalOptions,
  signal: AbortSignal,
  commands: readonly CommandSpec[],
): Context {
  const terminal = detectTerminal(io, globals);
  // Credentials given directly are known before any profile resolves, so even a failure resolving it is masked.
  const secrets = new KnownSecrets(
    [globals.apiKey, globals.token, io.env.TEXTGEN_API_KEY, io.env.TEXTGEN_TOKEN].filter(
      (s): s is string => s !== undefined,
    ),
  );
  const reporter = createReporter({
    stderr: io.stderr,
    quiet: globals.quiet === true,
    verbose: globals.verbose === true,
    color: terminal.colorLevel,
    redact: (text) => secrets.redact(text),
  });
  // What -q must not hide: a config file skipped for its owner, credentials or TLS settings held back.
  const alerts = createReporter({
    stderr: io.stderr,
    quiet: false,
    verbose: false,
    color: terminal.colorLevel,
    redact: (text) => secrets.redact(text),
  });
  const out = createDataSink(io.stdout, { terminal: terminal.stdoutIsTTY });
  const disposers: Array<() => Promise<void>> = [];
  let profilePromise: Promise<ResolvedProfile> | undefined;
  // Keyed by profile: each profile a command passes gets its own client, authenticator and (local) server.
  const connected = new Map<ResolvedProfile, Promise<ResolvedProfile>>();
  const clients = new Map<ResolvedProfile, Promise<HttpClient>>();
  const authenticators = new Map<ResolvedProfile, Promise<Authenticator>>();
  let cache: TokenCache | undefined;

  /** The profile after precedence; reading config only (a local profile's server is started by `connect`). */
  async function resolve(): Promise<ResolvedProfile> {
    const { loadConfig } = await import('../config/load.js');
    const { resolveProfile } = await import('../config/resolve.js');
    const configPath = globals.config ?? io.env.TEXTGEN_CONFIG;
    const config = await loadConfig({
      cwd: io.cwd,
      env: io.env,
      ...(configPath ? { configPath } : {}),
      warn: (m) => reporter.warn(m),
      alert: (m) => alerts.warn(m),
    });
    const profile = await resolveProfile({ globals, env: io.env, config, cwd: io.cwd, alert: (m) => alerts.warn(m) });
    for (const secret of profile.secrets) secrets.add(secret);
    if (profile.tls.insecure) {
      // Say who turned it off: the flag, or the file that holds the profile (a project file's, even with -q).
      const file = config.sources.profiles[profile.name];
      if (globals.insecure === true || file === undefined)
        reporter.warn('TLS certificate verification is disabled (--insecure)');
      else
        (file === config.sources.projectFile ? alerts : reporter).warn(
          `TLS certificate verification is disabled by tls.insecure in profile "${profile.name}" of ${profile.source}`,
        );
    }
    return profile;
  }

  /** host:port of each embedded server a local profile started. */
  const embeddedHosts = new Set<string>();

  /** A local profile without a URL gets one: the embedded server's, started now (src/cli/local-server.ts). */
  async function connect(profile: ResolvedProfile): Promise<ResolvedProfile> {
    if (!profile.local || profile.url) return profile;
    if (globals.dryRun) {
      // Nothing will be sent: point the curl line at where `textgen serve` listens by default, so it can be run.
      reporter.info(
        `note: the ${profile.name} profile starts an embedded server; run "textgen serve" to use this command line`,
      );
      return { ...profile, url: 'http://127.0.0.1:8080' };
    }
    const { startLocalServer } = await import('./local-server.js');
    const server = await startLocalServer(profile);
    disposers.push(() => server.close());
    embeddedHosts.add(new URL(server.url).host);
    reporter.trace(`* local profile: embedded server on ${server.url}`);
    return { ...profile, url: server.url };
  }

  /** The environment an HTTP client for `url` reads its proxy settings from: never a proxy for an embedded server. */
  function embeddedEnv(url: string): Record<string, string | undefined> {
    let host: string;
    try {
      host = new URL(url).host;
    } catch {
      return io.env;
    }
    return embeddedHosts.has(host) ? bypassProxyFor(io.env, host) : io.env;
  }

  /**
   * --record/--replay, checked once (a bad --match or --replay-timing is a usage error on the first call). Without
   * any of the four flags the cassette code is not loaded at all (in the request's bundle it is a cold part).
   */
  let cassetteMemo: Promise<CassetteChoice | undefined> | undefined;
  function cassette(): Promise<CassetteChoice | undefined> {
    const { record, replay, match, replayTiming } = globals;
    if ([record, replay, match, replayTiming].every((flag) => flag === undefined)) return Promise.resolve(undefined);
    cassetteMemo ??= import('../cassette/options.js').then((m) => m.cassetteChoice(globals, io.env, new Date()));
    return cassetteMemo;
  }

  /** An HTTP client for a profile; with `withCassette`, through --record/--replay's cassette when one is given. */
  async function httpClient(profile: ResolvedProfile, withCassette: boolean): Promise<HttpClient> {
    const choice = withCassette ? await cassette() : undefined;
    const { createHttpClient } = await import('../http/client.js');
    const client = createHttpClient({
      timeoutMs: profile.timeoutMs,
      retries: profile.retries,
      ...(profile.tls.caCert ? { caCertPath: profile.tls.caCert } : {}),
      insecure: profile.tls.insecure,
      trace: reporter.verbose ? (line) => reporter.trace(line) : undefined,
      notice: (line) => reporter.info(line),
      secrets,
      env: embeddedEnv(profile.url),
      ...(choice === undefined
        ? {}
        : { cassette: { ...choice, protocol: profile.provider, warn: (m: string) => reporter.warn(m) } }),
    });
    disposers.push(() => client.close());
    return client;
  }

  let output: OutputChoice | undefined;
  const ctx: Context = {
    globals,
    env: io.env,
    cwd: io.cwd,
    get stdin() {
      return io.stdin;
    },
    out,
    output() {
      output ??= {
        format: parseOutputFormat(globals.output),
        jmes: globals.jmesQuery,
        rawOutput: globals.rawOutput === true,
      };
      return output;
    },
    stderr: io.stderr,
    reporter,
    secrets,
    terminal,
    signal,
    now: () => Date.now(),
    commands,
    profile() {
      // A failure is not kept: after `profiles add` (src/cli/offer-profile.ts) the next call resolves again.
      profilePromise ??= resolve().catch((e: unknown) => {
        profilePromise = undefined;
        throw e;
      });
      return profilePromise;
    },
    connect(profile) {
      return memo(connected, profile, () => connect(profile));
    },
    http(profile) {
      return memo(clients, profile, () => httpClient(profile, true));
    },
    authenticator(profile) {
      return memo(authenticators, profile, async () => {
        // Under --replay nothing is sent: no token exchange, no credential needed (docs/cassettes.md).
        const choice = await cassette();
        if (choice?.mode === 'replay') return (await import('../cassette/offline-auth.js')).OFFLINE_AUTHENTICATOR;
        // Under --record the token exchanges go around the cassette: a token service's answer is no entry.
        const http = choice === undefined ? await ctx.http(profile) : await httpClient(profile, false);
        const { adapterFor } = await import('../../profiles/registry.js');
        cache ??= lazyTokenCache(io.env);
        const auth = await adapterFor(profile.provider).auth.create({
          profile,
          http,
          cache,
          now: ctx.now,
          warn: (m) => reporter.warn(m),
        });
        // user:password@ in the URL (README, "Profiles and configuration"); most URLs have no "@" at all.
        if (!profile.url.includes('@')) return auth;
        const { withUrlCredentials } = await import('../call/url-credentials.js');
        return withUrlCredentials(profile, auth, (value) => secrets.add(value));
      });
    },
    async prompter() {
      if (!terminal.interactive) return (await import('../prompt/prompter.js')).refusingPrompter();
      const { createInquirerPrompter } = await import('../prompt/inquirer-prompter.js');
      return createInquirerPrompter({ stdin: io.stdin, stderr: io.stderr, signal });
    },
    async dispose() {
      // A failed write was reported by the top level already; disposing must still release everything.
      await out.flush().catch(() => undefined);
      for (const d of disposers.reverse()) {
        try {
          await d();
        } catch {
          // Shutting down: a close failure must not mask the command's result.
        }
      }
    },
  };
  return ctx;
}

/** The value made for `key` the first time it is asked for. */
function memo<K, V>(made: Map<K, Promise<V>>, key: K, make: () => Promise<V>): Promise<V> {
  let value = made.get(key);
  if (value === undefined) {
    value = make();
    made.set(key, value);
  }
  return value;
}

/**
 * `env` with `host` added to NO_PROXY: the embedded server of a local profile is in this process, so its traffic
 * (the prompt included) must never leave through HTTP(S)_PROXY; anything else keeps the user's proxy settings.
 */
function bypassProxyFor(env: Record<string, string | undefined>, host: string): Record<string, string | undefined> {
  // The lower-case spelling wins where both are set (curl, undici): extend it, and set both to one value.
  const noProxy = [env.no_proxy ?? env.NO_PROXY, host].filter((v) => v !== undefined && v.trim() !== '').join(',');
  return { ...env, no_proxy: noProxy, NO_PROXY: noProxy };
}

/**
 * The token cache, loaded on first use: only token exchanges (IAM, CPD) use it, and loading it brings node:crypto,
 * which an API key or a bearer token never needs (docs/performance.md).
 */
function lazyTokenCache(env: Record<string, string | undefined>): TokenCache {
  let real: Promise<TokenCache> | undefined;
  const load = () => (real ??= import('../config/token-cache.js').then((m) => m.createTokenCache({ env })));
  return {
    get: async (key) => (await load()).get(key),
    set: async (key, token) => (await load()).set(key, token),
    delete: async (key) => (await load()).delete(key),
  };
}
