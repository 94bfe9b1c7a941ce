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
import { compileCacheDir, loadBundle } from './compile-cache.js';

/** The content hashes of dist/cli.cjs and dist/run.cjs, filled in by scripts/bundle.mjs (`define`). */
declare const TEXTGEN_BUNDLE_IDS: { cli: string; run: string };
/** The help pages rendered at build time: command line (helpPageKey) → `help/<n>.txt` (scripts/bundle.mjs). */
declare const TEXTGEN_HELP_PAGES: Record<string, number>;

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
  const key = argv.join('\u0000');
  const page = Object.hasOwn(TEXTGEN_HELP_PAGES, key) ? TEXTGEN_HELP_PAGES[key] : undefined;
  if (page !== undefined) {
    // As the parser does: a reader that goes away (`textgen --help | head`) is not an error.
    process.stdout.on('error', () => undefined);
    // The bytes as written (UTF-8: the pages hold "…"), not decoded and encoded again.
    process.stdout.write(readFileSync(join(dist, 'help', `${page}.txt`)));
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
  const cli = loadBundle<CliBundle>(join(dist, 'cli.cjs'), TEXTGEN_BUNDLE_IDS.cli, cacheDir);
  const outcome = await cli.exports.parseCommandLine(argv, io);
  if ('exitCode' in outcome) {
    process.exitCode = outcome.exitCode;
    cli.persist('help');
    return;
  }
  // Written now, not after the command: the flag below would make V8 refuse this cache on the next run.
  cli.persist('parse');
  if (throughProxy(process.env)) {
    // Only requests through a proxy use undici (src/http/client.ts; direct ones go through node:http). undici
    // compiles its HTTP parser (WebAssembly) when it loads; with tier-up on, Node waits at exit for the optimising
    // compiler to finish — about 150 ms on every command that talks to a service (bench/results.md). The baseline
    // compiler parses HTTP framing fast enough. Set before anything compiles WebAssembly, and before run.cjs is read
    // (V8 keeps a cache only for the flags it was made with, so runs with a proxy have caches of their own).
    // Any V8 flag set at run time also makes V8 refuse Node's own code cache for every built-in module loaded after
    // it, which then compiles from source: the built-ins a request to a service loads anyway are loaded first, from
    // that cache (a watsonx request: 330 → 289 M instructions, docs/performance.md).
    // process.getBuiltinModule, not import(): a dynamic import loads Node's ES module loader first (about 2 ms).
    for (const name of SERVICE_BUILTINS) process.getBuiltinModule(name);
    process.getBuiltinModule('node:v8').setFlagsFromString('--liftoff-only');
  }
  // One cache per command: each run deserialises the code of its own command, not of every command ever run.
  const run = loadBundle<RunBundle>(join(dist, 'run.cjs'), TEXTGEN_BUNDLE_IDS.run, cacheDir, outcome.selection.key);
  process.exitCode = await run.exports.executeCommand(outcome.selection, io, { handleSignals: true });
  // After the command, so that writing the cache never delays its output.
  run.persist(outcome.selection.key);
}
