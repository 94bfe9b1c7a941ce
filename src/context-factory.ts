import type { Authenticator } from '../profiles/types.js';
import type { Context, Terminal } from './context.js';
import type { GlobalOptions, ResolvedProfile } from './config/types.js';
import type { HttpClient } from './http/types.js';
import type { TokenCache } from './config/token-cache.js';
import { createReporter } from './reporter.js';
import { createDataSink } from './output/safe-write.js';
import { colorLevel } from './output/color.js';
import { KnownSecrets } from './http/redact.js';

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
 * Builds the Context a command runs with. Heavy pieces (config loading, undici, the embedded
 * server) are created on first use, so commands that never touch the network stay fast.
 */
export function createContext(io: ProcessLike, globals: GlobalOptions, signal: AbortSignal): Context {
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
  const out = createDataSink(io.stdout);
  const disposers: Array<() => Promise<void>> = [];
  let profilePromise: Promise<ResolvedProfile> | undefined;
  let httpPromise: Promise<HttpClient> | undefined;
  let authPromise: Promise<Authenticator> | undefined;
  let cache: TokenCache | undefined;
  /** host:port of the embedded server a local profile started, once started. */
  let embeddedHost: string | undefined;

  async function resolve(): Promise<ResolvedProfile> {
    const { loadConfig } = await import('./config/load.js');
    const { resolveProfile, NoProfileSelected } = await import('./config/resolve.js');
    const config = await loadConfig({
      cwd: io.cwd,
      env: io.env,
      ...((globals.config ?? io.env.TEXTGEN_CONFIG) ? { configPath: globals.config ?? io.env.TEXTGEN_CONFIG } : {}),
      warn: (m) => reporter.warn(m),
    });
    let profile;
    try {
      profile = await resolveProfile({ globals, env: io.env, config, cwd: io.cwd });
    } catch (e) {
      if (!(e instanceof NoProfileSelected) || !terminal.interactive || !(await offerNewProfile())) throw e;
      const again = await loadConfig({
        cwd: io.cwd,
        env: io.env,
        ...((globals.config ?? io.env.TEXTGEN_CONFIG) ? { configPath: globals.config ?? io.env.TEXTGEN_CONFIG } : {}),
        warn: (m) => reporter.warn(m),
      });
      profile = await resolveProfile({ globals, env: io.env, config: again, cwd: io.cwd });
    }
    for (const secret of profile.secrets) secrets.add(secret);
    if (profile.local && !profile.url && globals.dryRun) {
      // Nothing will be sent: point the curl line at where `textgen serve` listens by default, so it can be run.
      profile.url = 'http://127.0.0.1:8080';
      reporter.info(
        `note: the ${profile.name} profile starts an embedded server; run "textgen serve" to use this command line`,
      );
    } else if (profile.local && !profile.url) {
      const { startServer } = await import('./emulator/core/index.js');
      const { createEngine } = await import('./emulator/engine/create.js');
      const server = await startServer({ host: '127.0.0.1', port: 0, engine: await createEngine(profile.engine) });
      disposers.push(() => server.close());
      profile.url = server.url;
      embeddedHost = new URL(server.url).host;
      reporter.trace(`* local profile: embedded server on ${server.url}`);
    }
    if (profile.tls.insecure) {
      reporter.warn('TLS certificate verification is disabled (--insecure)');
    }
    return profile;
  }

  /** docs/design.md §6: with no profile at all, a person at a terminal is offered to create one (it becomes the default). */
  async function offerNewProfile(): Promise<boolean> {
    const prompter = await ctx.prompter();
    if (!(await prompter.confirm('No profile is configured. Create one now?', { default: true }))) return false;
    const { run: addProfile } = await import('../commands/profiles/add.js');
    return (await addProfile({ args: [] }, ctx)) === 0;
  }

  const ctx: Context = {
    globals,
    env: io.env,
    cwd: io.cwd,
    get stdin() {
      return io.stdin;
    },
    out,
    stderr: io.stderr,
    reporter,
    secrets,
    terminal,
    signal,
    now: () => Date.now(),
    profile() {
      profilePromise ??= resolve();
      return profilePromise;
    },
    http(profile) {
      httpPromise ??= (async () => {
        const { createHttpClient } = await import('./http/client.js');
        const client = createHttpClient({
          timeoutMs: profile.timeoutMs,
          retries: profile.retries,
          ...(profile.tls.caCert ? { caCertPath: profile.tls.caCert } : {}),
          insecure: profile.tls.insecure,
          trace: reporter.verbose ? (line) => reporter.trace(line) : undefined,
          notice: (line) => reporter.info(line),
          secrets,
          env: embeddedHost === undefined ? io.env : bypassProxyFor(io.env, embeddedHost),
        });
        disposers.push(() => client.close());
        return client;
      })();
      return httpPromise;
    },
    authenticator(profile) {
      authPromise ??= (async () => {
        const http = await ctx.http(profile);
        const { adapterFor } = await import('../profiles/registry.js');
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
        const { withUrlCredentials } = await import('./requests/url-credentials.js');
        return withUrlCredentials(profile, auth, (value) => secrets.add(value));
      })();
      return authPromise;
    },
    async prompter() {
      if (!terminal.interactive) return (await import('./prompt/prompter.js')).refusingPrompter();
      const { createInquirerPrompter } = await import('./prompt/inquirer-prompter.js');
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
  const load = () => (real ??= import('./config/token-cache.js').then((m) => m.createTokenCache({ env })));
  return {
    get: async (key) => (await load()).get(key),
    set: async (key, token) => (await load()).set(key, token),
    delete: async (key) => (await load()).delete(key),
  };
}
