/**
 * What bin/textgen.js runs (bundled to dist/launch.cjs by scripts/bundle.mjs): src/cli/main.ts's steps, each half
 * from its own bundle so that a run loads only what it needs:
 *   --version   package.json, nothing else;
 *   parse       dist/cli.cjs — commander and the command specs: help, usage errors and the choice of command;
 *   execute     dist/run.cjs — the context, the chosen handler and what it loads.
 * Both bundles are compiled through V8's code cache (./compile-cache.ts). Types only from the rest of src/: the
 * code itself is in the bundles.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ProcessLike } from '../context-factory.js';
import type { MainOptions, ParseOutcome, Selection } from '../selection.js';
import { LENT_IMPORT } from '../../import-esm.js';
import { compileCacheDir, type LoadedBundle, loadBundle } from './compile-cache.js';
import { routedSpec } from '../route.js';
import { writeOut } from './write-out.js';

/**
 * The content hashes of dist/cli.cjs and dist/run.cjs, and the smaller runner bundles of some commands (command key →
 * bundle name and hash), filled in by scripts/bundle.mjs (`define`).
 */
declare const TEXTGEN_BUNDLE_IDS: {
  cli: string;
  run: string;
  runners: Record<string, SmallRunner>;
};
/**
 * A small runner bundle and its cold parts (`<name>.<part>.cjs`: the emulator, the other providers' protocol code,
 * undici, yaml, zod, jmespath, the batch, the cassettes), each read only by a run that needs it; a part holds the
 * modules under its path prefixes that the runner (or another part) asks for.
 */
interface SmallRunner {
  name: string;
  id: string;
  parts: Record<string, { name: string; id: string; prefixes: string[] }>;
}
/** The help pages rendered at build time: command line (helpPageKey) → `help/<n>.txt` (scripts/bundle.mjs). */
declare const TEXTGEN_HELP_PAGES: Record<string, number>;

/** The command words and the global options' flags (scripts/bundle.mjs), for src/cli/route.ts. */
declare const TEXTGEN_ROUTE: { commands: { path: string[] }[]; globals: { flags: string }[] };

/** Node's modules that every request through a proxy loads (undici, the trace's status texts, the response reader). */
const SERVICE_BUILTINS = ['node:net', 'node:http', 'node:diagnostics_channel', 'node:fs/promises'] as const;
/** The variables that send a request through undici's proxy agent (src/http/proxy-env.ts reads the same). */
const PROXY_VARIABLES = ['http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY'] as const;

/** Whether a request may go through a proxy (and so through undici); NO_PROXY is left to the client. */
function throughProxy(env: NodeJS.ProcessEnv): boolean {
  return PROXY_VARIABLES.some((name) => (env[name] ?? '').trim() !== '');
}

interface CliBundle {
  parseCommandLine(argv: string[], io: ProcessLike): Promise<ParseOutcome>;
}

interface RunBundle {
  executeCommand(selection: Selection, io: ProcessLike, options: MainOptions): Promise<number>;
  quickSelection(argv: readonly string[], key: string): Selection | undefined;
  /** Why this run should leave the code cache alone (src/contract/code-cache-coverage.ts); absent in old bundles. */
  oneOffRun?(): string | undefined;
  /** A small runner's modules that its cold part uses (scripts/bundle.mjs). */
  TEXTGEN_SHARED?: Record<string, () => unknown>;
}

/** The prefixes of scripts/bundle.mjs for a small runner's cold modules and for what they share with it. */
const COLD = 'textgen-cold:';
const SHARED = 'textgen-shared:';

/** The runner bundle of the command `key` (dist/run.cjs, or a smaller one that holds it), with one cache per command. */
function runnerFor(
  key: string,
  argv: readonly string[],
  dist: string,
  cacheDir: string | undefined,
): LoadedBundle<RunBundle> {
  // Each run deserialises the code of its own command, not of every command ever run. The commands run once per
  // prompt have a runner bundle without the other commands' handlers (scripts/bundle.mjs SMALL_RUNNERS).
  const small = Object.hasOwn(TEXTGEN_BUNDLE_IDS.runners, key) ? TEXTGEN_BUNDLE_IDS.runners[key] : undefined;
  // A batch compiles far more than one request: the cache a batch wrote cost every later single request of the
  // command about 9 M instructions (docs/performance.md), so batches keep a cache of their own. Only a cache name:
  // a word that merely looks like the flag costs nothing but a cache miss.
  const scope = argv.some((a) => a === '--batch' || a.startsWith('--batch=')) ? `${key} batch` : key;
  return small
    ? withColdParts(small, dist, cacheDir, scope)
    : loadBundle<RunBundle>(join(dist, 'run.cjs'), TEXTGEN_BUNDLE_IDS.run, cacheDir, scope);
}

/**
 * A small runner whose rarely used modules are in bundles of their own (scripts/bundle.mjs COLD_PARTS), each read on
 * the first `require("textgen-cold:<module>")` of one of its modules; a part's `require("textgen-shared:<module>")`
 * gets the runner's own instance of a module both use (`TEXTGEN_SHARED`). `persist` writes every loaded one's cache.
 */
function withColdParts(
  small: SmallRunner,
  dist: string,
  cacheDir: string | undefined,
  scope: string,
): LoadedBundle<RunBundle> {
  const loaded = new Map<string, LoadedBundle<Record<string, () => unknown>>>();
  const shared = (request: string): unknown => {
    const loader = runner.exports.TEXTGEN_SHARED?.[request.slice(SHARED.length)];
    if (!request.startsWith(SHARED) || loader === undefined)
      throw new Error(`${small.name}.cjs does not hold ${request}`);
    return loader();
  };
  const cold = (request: string): unknown => {
    const path = request.slice(COLD.length);
    const part = request.startsWith(COLD)
      ? Object.values(small.parts).find((p) => p.prefixes.some((prefix) => path.startsWith(prefix)))
      : undefined;
    if (part === undefined) throw new Error(`${small.name}.cjs has no part holding ${request}`);
    let bundle = loaded.get(part.name);
    if (bundle === undefined) {
      bundle = loadBundle(join(dist, `${part.name}.cjs`), part.id, cacheDir, scope, fromPart);
      loaded.set(part.name, bundle);
    }
    const module = bundle.exports[path];
    if (module === undefined) throw new Error(`${part.name}.cjs does not hold ${request}`);
    return module();
  };
  // A part takes the runner's modules, and another part's (zod's schemas from the batch part), as the runner does.
  const fromPart = (request: string): unknown => (request.startsWith(SHARED) ? shared(request) : cold(request));
  const runner = loadBundle<RunBundle>(join(dist, `${small.name}.cjs`), small.id, cacheDir, scope, cold);
  return {
    exports: runner.exports,
    persist(key) {
      runner.persist(key);
      for (const part of loaded.values()) part.persist(key);
    },
  };
}

/**
 * Sets what a request through a proxy needs before any bundle compiles (see below). Only requests through a proxy
 * use undici (src/http/client.ts; direct ones go through node:http).
 */
function prepareForProxy(): void {
  // undici compiles its HTTP parser (WebAssembly) when it loads; with tier-up on, Node waits at exit for the
  // optimising compiler to finish — about 150 ms on every command that talks to a service (bench/results.md). The
  // baseline compiler parses HTTP framing fast enough. Set before anything compiles WebAssembly, and before a runner
  // bundle is read (V8 keeps a cache only for the flags it was made with, so runs with a proxy have caches of their
  // own). Any V8 flag set at run time also makes V8 refuse Node's own code cache for every built-in module loaded
  // after it, which then compiles from source: the built-ins a request to a service loads anyway are loaded first,
  // from that cache (a watsonx request: 330 → 289 M instructions, docs/performance.md).
  // process.getBuiltinModule, not import(): a dynamic import loads Node's ES module loader first (about 2 ms).
  for (const name of SERVICE_BUILTINS) process.getBuiltinModule(name);
  process.getBuiltinModule('node:v8').setFlagsFromString('--liftoff-only');
}

/** Runs textgen with `argv`; `dist` is the folder of the bundles. Sets process.exitCode. */
export async function launch(argv: string[], dist: string): Promise<void> {
  if (argv.length === 1 && argv[0] === '--version') {
    const pkg = JSON.parse(readFileSync(join(dist, '..', 'package.json'), 'utf8')) as { version?: string };
    process.stdout.write(`${pkg.version ?? '0.0.0'}\n`);
    return;
  }
  // `textgen --help`, `textgen help deployment`, …: the page as commander rendered it at build time, without
  // building the command line (src/cli/help-text.ts helpCommandLines). Same key as helpPageKey, written out here so
  // that the launcher loads nothing of the parser bundle.
  const pageKey = argv.join('\u0000');
  const page = Object.hasOwn(TEXTGEN_HELP_PAGES, pageKey) ? TEXTGEN_HELP_PAGES[pageKey] : undefined;
  if (page !== undefined) {
    // The bytes as written (UTF-8: the pages hold "…"), not decoded and encoded again.
    writeOut(readFileSync(join(dist, 'help', `${page}.txt`)), {
      stream: () => {
        // As the parser does: a reader that goes away (`textgen --help | head`) is not an error.
        process.stdout.on('error', () => undefined);
        return process.stdout;
      },
    });
    return;
  }
  // The bundles run as vm scripts, which cannot import() in Node 20 (src/import-esm.ts): this module can.
  (globalThis as Record<symbol, unknown>)[LENT_IMPORT] = (specifier: string) => import(specifier);
  const io: ProcessLike = {
    env: process.env,
    cwd: process.cwd(),
    // Node builds process.stdin on first use (a file stream, with fs/promises and readline behind it): help and
    // usage errors never read it.
    get stdin() {
      return process.stdin;
    },
    stdout: process.stdout,
    stderr: process.stderr,
  };
  const cacheDir = compileCacheDir(process.env);
  // The common case: the words name a command for certain (src/cli/route.ts), and its runner bundle parses the rest
  // without commander (src/cli/quick-parse.ts); dist/cli.cjs is not even read. Anything else — help, a usage error,
  // an unusual shape — goes to commander, as it always did. Not through a proxy: the V8 flag below must be set after
  // dist/cli.cjs is cached and before a runner bundle is read, so such runs keep the order they always had.
  const proxy = throughProxy(process.env);
  const routed = proxy ? undefined : routedSpec(argv, TEXTGEN_ROUTE.commands, TEXTGEN_ROUTE.globals)?.path.join(' ');
  let run: LoadedBundle<RunBundle> | undefined;
  let selection: Selection | undefined;
  if (routed !== undefined) {
    run = runnerFor(routed, argv, dist, cacheDir);
    selection = run.exports.quickSelection(argv, routed);
  }
  if (selection !== undefined && run !== undefined) {
    // As commander's parse does (src/cli/program.ts): a reader that goes away is not an error.
    io.stdout.on('error', () => undefined);
  } else {
    const cli = loadBundle<CliBundle>(join(dist, 'cli.cjs'), TEXTGEN_BUNDLE_IDS.cli, cacheDir);
    const outcome = await cli.exports.parseCommandLine(argv, io);
    if ('exitCode' in outcome) {
      process.exitCode = outcome.exitCode;
      cli.persist('help');
      return;
    }
    // Written now, not after the command: the flag below would make V8 refuse this cache on the next run.
    cli.persist('parse');
    selection = outcome.selection;
    if (proxy) prepareForProxy();
    if (run === undefined || routed !== selection.key) run = runnerFor(selection.key, argv, dist, cacheDir);
  }
  process.exitCode = await run.exports.executeCommand(selection, io, { handleSignals: true });
  // After the command, so that writing the cache never delays its output; not after a run whose one-off work the
  // next runs skip (src/contract/code-cache-coverage.ts).
  if (run.exports.oneOffRun?.() === undefined) run.persist(selection.key);
}
