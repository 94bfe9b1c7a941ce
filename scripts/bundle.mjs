#!/usr/bin/env node
// `npm run build`, after tsc: the bundles bin/textgen.js runs (docs/performance.md, "Start-up").
//   dist/cli.cjs     src/cli/launch/cli-entry.ts — commander and the command specs (help, parsing)
//   dist/run.cjs     src/cli/launch/run-entry.ts — the chosen command and everything it loads
//   dist/run-*.cjs   the same entry with only some commands' handlers (SMALL_RUNNERS, below)
//   dist/run-*.<part>.cjs  code of such a runner that only some runs need (COLD_PARTS, below)
//   dist/launch.cjs  src/cli/launch/launch.ts    — loads the two through V8's code cache
// CommonJS, because Node 20 can give V8's code cache only to scripts (vm.Script), not to ES modules. Only entry
// points are named here: what each bundle holds follows from the imports.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Node modules that a dependency requires when it loads but uses only on a path textgen does not take; each costs
 * every run a few milliseconds of Node compiling its own modules (docs/performance.md). In the bundles they are
 * loaded on first use instead. The build stops when the dependency's use of the module changes, rather than
 * guess.
 *   - commander loads node:child_process only to spawn executable subcommands, which textgen has none of
 *     (scripts/commander-child-process.cjs);
 *   - undici loads node:assert for `assert(value)` checks of its own invariants (scripts/undici-assert.cjs);
 *   - undici's HTTP/2 client loads node:http2 (and through it tls and crypto) for a few constants and `connect`;
 *     textgen never asks undici for HTTP/2. The constants are copied from this Node's http2 when building.
 */
const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(b) {
    b.onResolve({ filter: /^(node:)?child_process$/ }, (args) => {
      if (!/[\\/]node_modules[\\/]commander[\\/]/.test(args.importer)) return undefined;
      const used = new Set(readFileSync(args.importer, 'utf8').match(/childProcess\.\w+/g) ?? []);
      if ([...used].some((u) => u !== 'childProcess.spawn'))
        throw new Error(`${args.importer} uses ${[...used].join(', ')}: update scripts/commander-child-process.cjs`);
      return { path: join(root, 'scripts', 'commander-child-process.cjs') };
    });
    b.onResolve({ filter: /^(node:)?assert$/ }, (args) => {
      if (!/[\\/]node_modules[\\/]undici[\\/]/.test(args.importer)) return undefined;
      const source = readFileSync(args.importer, 'utf8');
      if (/\bassert\.\w|new assert\b/.test(source) || !/const assert = require\('node:assert'\)/.test(source))
        throw new Error(`${args.importer} uses node:assert beyond assert(value): update scripts/undici-assert.cjs`);
      return { path: join(root, 'scripts', 'undici-assert.cjs') };
    });
    b.onResolve({ filter: /^(node:)?http2$/ }, (args) => {
      if (!/[\\/]node_modules[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client-h2\.js$/.test(args.importer))
        return undefined;
      const source = readFileSync(args.importer, 'utf8');
      const used = new Set(source.match(/\bhttp2\.\w+/g) ?? []);
      const names = /const \{\s*constants: \{([^}]*)\}\s*\} = http2/
        .exec(source)?.[1]
        ?.split(',')
        .map((n) => n.trim())
        .filter(Boolean);
      if ([...used].some((u) => u !== 'http2.connect') || !names?.length)
        throw new Error(`${args.importer} uses node:http2 differently now: update the lazy-builtins plugin`);
      return { path: 'lazy-http2', namespace: 'lazy-builtins', pluginData: { names } };
    });
    b.onLoad({ filter: /^lazy-http2$/, namespace: 'lazy-builtins' }, async (args) => {
      const { constants } = await import('node:http2');
      const picked = Object.fromEntries(args.pluginData.names.map((n) => [n, constants[n]]));
      if (Object.values(picked).some((v) => v === undefined))
        throw new Error('node:http2 lacks a constant undici uses');
      return {
        loader: 'js',
        contents: `module.exports = { constants: ${JSON.stringify(picked)}, connect(...args) { return require('node:http2').connect(...args); } };`,
      };
    });
  },
};

/**
 * The parser's bundle (dist/cli.cjs) holds the command list (src/cli/commands.ts) but never runs a handler: the
 * runner's bundle does. Each command file ends in `export const command = defineCommand({ spec, helpGroup: …, run })`;
 * here its `run` is swapped for a stub, so that esbuild drops the handler and everything only it imports, as it
 * drops any unused code. The build stops when a command file is written otherwise, rather than guess. `kept`: the
 * command files (relative to the root, "commands/chat.ts") whose handler stays (the smaller runner bundles, below).
 */
function handlersLeftOut(bundle, kept = new Set()) {
  return {
    name: 'handlers-left-out',
    setup(b) {
      b.onLoad({ filter: /[\\/]commands[\\/].*\.ts$/ }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        const definition = /export const command = defineCommand\(\{ spec, helpGroup: ('[^']+'), run \}\);\n$/;
        if (!definition.test(source))
          throw new Error(
            `${args.path}: end it with export const command = defineCommand({ spec, helpGroup: '…', run });`,
          );
        if (kept.has(relative(root, args.path).split(sep).join('/'))) return undefined;
        return {
          loader: 'ts',
          contents: source.replace(
            definition,
            `export const command = defineCommand({ spec, helpGroup: $1, run: async () => { throw new Error('${bundle} runs no handler of this command'); } });\n`,
          ),
        };
      });
    },
  };
}

/**
 * Runner bundles of their own for the commands scripts and CI loops run once per prompt: each holds only its
 * commands' handlers and what they load, so a run deserialises (V8's code cache) and reads less than dist/run.cjs,
 * which holds every command (docs/performance.md, "Start-up, third round"). Every other command runs from
 * dist/run.cjs. Name → command keys; a command's file is commands/<its words joined by "/">.ts.
 */
const SMALL_RUNNERS = {
  'run-generate': ['deployment text-generate', 'deployment text-generate-stream'],
};
// Handlers a small runner keeps without being routed to it: a command with no profile at all offers to create one
// and runs `profiles add` in the same process (src/cli/offer-profile.ts).
const KEPT_BY_EVERY_RUNNER = ['profiles add'];

/**
 * Code a small runner loads only on some runs, in bundles of their own ("cold parts", dist/<runner>.<part>.cjs),
 * each read only when its path is taken: V8 deserialises every function of a bundle it loads, run or not
 * (docs/performance.md, "fourth round"). A part is a folder, a package's folder, or a list of folders and files: a
 * module in it that the runner (or another part) imports from outside it is left to the part. `emulator`: the embedded server of the `local` profiles (a quarter of the request's
 * bundle); the other providers' protocol code (watsonx's, the command's own service, stays in the runner). What a
 * part shares with the runner (src/contract, profiles/common, …) is not copied: the part takes those modules from
 * the runner itself, and a module two parts need goes to the runner, so each of textgen's modules has one instance
 * (one `UsageError` class). Packages are the exception (below).
 */
const COLD_PARTS = {
  emulator: 'src/emulator/',
  openai: 'profiles/openai/client/',
  'aleph-alpha': 'profiles/aleph-alpha/client/',
  'open-inference': 'profiles/open-inference/client/',
  // undici, for requests through an HTTP(S)_PROXY only: a third of the runner's bytes, read by every request else.
  undici: 'src/http/undici/',
  // What the runner loads only lazily and a plain request never runs: two fifths of its bytes (docs/performance.md,
  // "eighth round"). A part may be a package's folder: every module importing the package then takes the part's
  // single instance. yaml reads and edits a config file the parsed-config cache has not seen
  // (src/config/parsed-cache.ts); jmespath answers -j and a batch's result query. zod's part is the modules that
  // validate with it (a config file, JSON options, a chat batch line's messages and parameters), so that zod is
  // bundled once, with them, and only what they use of it is kept (the whole package with its locales is four
  // times as big).
  yaml: 'node_modules/yaml/',
  jmespath: 'node_modules/@jmespath-community/jmespath/',
  zod: ['src/options/schemas.ts', 'src/config/schema.ts', 'src/chat/messages.ts', 'src/chat/parameters.ts'],
  // --batch (its flags are parsed by src/options/batch-settings.ts, outside the part) and --record/--replay.
  batch: 'src/batch/',
  cassette: 'src/cassette/',
};
const COLD_PREFIX = 'textgen-cold:';
const SHARED_PREFIX = 'textgen-shared:';

/** The root-relative path of a relative import written in TypeScript's style (`./x.js` for `./x.ts`). */
function tsPath(resolveDir, path) {
  const full = join(resolveDir, path);
  const ts = full.replace(/\.js$/, '.ts');
  return relative(root, existsSync(ts) ? ts : full)
    .split(sep)
    .join('/');
}

/** The markers of the plugins' own `b.resolve` calls, which no plugin here resolves again (or they would loop). */
const RESOLVING = new Set(['cold-left-out', 'shared-from-runner']);

/**
 * An import resolved as esbuild would, marked so that no plugin here resolves it again: `rel`, its root-relative
 * path, for a file; otherwise `result`, what the plugin returns (the errors, or undefined for esbuild's own answer).
 */
async function resolvedPath(b, args, marker) {
  const r = await b.resolve(args.path, {
    kind: args.kind,
    importer: args.importer,
    resolveDir: args.resolveDir,
    pluginData: marker,
  });
  if (r.errors.length > 0) return { result: r };
  if (r.external || r.namespace !== 'file') return { result: undefined };
  return { rel: relative(root, r.path).split(sep).join('/') };
}

/** A part's folders or files, as root-relative path prefixes. */
const prefixesOf = (part) => [COLD_PARTS[part]].flat();
const partOf = (rel) => Object.keys(COLD_PARTS).find((part) => prefixesOf(part).some((p) => rel.startsWith(p)));

/**
 * In the runner: a module of a part, imported from outside the part, becomes `require("textgen-cold:<path>")`,
 * which the launcher answers; `entries` collects them (part → paths).
 */
function coldLeftOut(entries) {
  const leftOut = (rel, importer) => {
    const part = partOf(rel);
    if (part === undefined || partOf(relative(root, importer).split(sep).join('/')) === part) return undefined;
    (entries[part] ??= new Set()).add(rel);
    return { path: `${COLD_PREFIX}${rel}`, external: true };
  };
  return {
    name: 'cold-left-out',
    setup(b) {
      b.onResolve({ filter: /^\./ }, (args) => leftOut(tsPath(args.resolveDir, args.path), args.importer));
      // A package's name: resolved as esbuild would, then left out when the file is in a part's folder.
      b.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (RESOLVING.has(args.pluginData) || args.path.startsWith('node:')) return undefined;
        const r = await resolvedPath(b, args, 'cold-left-out');
        return r.rel === undefined ? r.result : leftOut(r.rel, args.importer);
      });
    },
  };
}

/** In a part: every module the runner holds becomes `require("textgen-shared:<path>")`; `used` collects them. */
function sharedFromRunner(runnerInputs, used) {
  return {
    name: 'shared-from-runner',
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (RESOLVING.has(args.pluginData) || args.kind === 'entry-point') return undefined;
        const r = await resolvedPath(b, args, 'shared-from-runner');
        if (r.rel === undefined) return r.result;
        const rel = r.rel;
        // Packages are not shared: taking one from the runner would keep the whole package there (zod with every
        // locale), and the emulator's own zod schemas never meet the runner's.
        if (!runnerInputs.has(rel) || rel.startsWith('node_modules/')) return undefined;
        used.add(rel);
        return { path: `${SHARED_PREFIX}${rel}`, external: true };
      });
    },
  };
}

/**
 * A small runner (dist/<name>.cjs) and its cold parts. The runner exports `TEXTGEN_SHARED` (path → loader of its
 * module) for what the parts take from it. Exporting a module whole can pull in code the runner had left out, and
 * a module two parts would both hold is moved to the runner, so they are built again until they agree on what is
 * shared. Returns the metafiles and the parts (part → the paths the runner asks it for).
 */
/** Part → paths, as one comparable string. */
const listed = (entries) => JSON.stringify(Object.entries(entries).map(([part, rels]) => [part, [...rels].sort()]));

async function buildWithColdParts(name, keptCommands) {
  const entry = join(root, 'src/cli/launch/run-entry.ts');
  const loaders = (rels) =>
    rels.map((rel) => `${JSON.stringify(rel)}: () => require(${JSON.stringify(join(root, rel))})`);
  let shared = [];
  // Modules of a part that another part imports (found while building the parts; part → paths): the part holding
  // them exports them too, and the importing part requires them as the runner does (`textgen-cold:`).
  const crossEntries = {};
  for (let round = 0; round < 6; round++) {
    const registry = {
      name: 'shared-registry',
      setup(b) {
        b.onLoad({ filter: /[\\/]src[\\/]cli[\\/]launch[\\/]run-entry\.ts$/ }, (args) => {
          if (args.path !== entry) return undefined;
          return {
            loader: 'ts',
            contents: `${readFileSync(args.path, 'utf8')}\nexport const TEXTGEN_SHARED: Record<string, () => unknown> = {${loaders(shared).join(', ')}};\n`,
          };
        });
      },
    };
    const entries = {};
    const runner = await build({
      ...common,
      entryPoints: { [name]: 'src/cli/launch/run-entry.ts' },
      plugins: [
        ...common.plugins,
        registry,
        coldLeftOut(entries),
        handlersLeftOut(`dist/${name}.cjs`, new Set(keptCommands)),
      ],
    });
    const inputs = new Set(Object.keys(runner.metafile.outputs[`dist/${name}.cjs`].inputs));
    for (const [part, rels] of Object.entries(crossEntries))
      for (const rel of rels) (entries[part] ??= new Set()).add(rel);
    const crossBefore = listed(crossEntries);
    const used = new Set();
    const parts = {};
    const metafiles = [runner.metafile];
    const holders = new Map();
    for (const [part, rels] of Object.entries(entries)) {
      const file = `${name}.${part}`;
      const cold = await build({
        ...common,
        entryPoints: undefined,
        stdin: {
          contents: `module.exports = {${loaders([...rels].sort()).join(', ')}};`,
          resolveDir: root,
          sourcefile: `${file}-entry.cjs`,
          loader: 'js',
        },
        outdir: undefined,
        outExtension: undefined,
        outfile: join(dist, `${file}.cjs`),
        plugins: [...common.plugins, coldLeftOut(crossEntries), sharedFromRunner(inputs, used)],
      });
      metafiles.push(cold.metafile);
      parts[part] = [...rels].sort();
      for (const rel of Object.keys(cold.metafile.outputs[`dist/${file}.cjs`].inputs))
        if (!rel.startsWith('node_modules/') && !rel.endsWith('-entry.cjs'))
          holders.set(rel, [...(holders.get(rel) ?? []), part]);
    }
    // Settled when the parts, built against this runner's modules, take exactly what it exports and hold no module
    // twice.
    const twice = [...holders].filter(([, p]) => p.length > 1).map(([rel]) => rel);
    const next = [...new Set([...used, ...twice])].sort();
    if (twice.length === 0 && next.join('\n') === shared.join('\n') && listed(crossEntries) === crossBefore)
      return { metafiles, parts };
    shared = next;
  }
  throw new Error(`${name}: its cold parts and the runner did not settle on the modules they share`);
}

/**
 * What a validated user config recorded by src/config/parsed-cache.ts depends on: every source file, the locked
 * versions of yaml and zod, and the package's version. Any change of them makes earlier records misses.
 */
function configSchemaId() {
  const hash = createHash('sha256');
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts')) hash.update(`${relative(root, full)}\0`).update(readFileSync(full));
    }
  };
  walk(join(root, 'src'));
  hash.update(readFileSync(join(root, 'package.json'))).update(readFileSync(join(root, 'package-lock.json')));
  return hash.digest('hex').slice(0, 16);
}

/** As src/cli/launch/compile-cache.ts's (test/e2e/bundle-wrap.test.ts checks that they agree). */
const WRAP_HEAD = '(function (exports, require, module, __filename, __dirname) { ';
const WRAP_TAIL = '\n});';

const dist = join(root, 'dist');
// Nothing stale: bin/textgen.js runs only what this build wrote.
rmSync(dist, { recursive: true, force: true });

const common = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  outdir: dist,
  outExtension: { '.js': '.cjs' },
  minify: process.env.TEXTGEN_BUNDLE_MINIFY !== '0',
  legalComments: 'none',
  logLevel: 'warning',
  // Left to Node, loaded only where used: typescript (textgen.config.ts, optional), node-llama-cpp (serve --engine
  // llama; installed apart, engines/llama) and gpt-tokenizer (megabytes
  // of BPE ranks, offline tokenizing), ajv (165 kB minified, for chat's --tools and --json-schema only: bundled, every
  // command would carry it in dist/run.cjs). ES-module-only packages (ora, @inquirer/prompts) and config files come
  // in through src/import-esm.ts, never seen by the bundler.
  external: ['typescript', 'gpt-tokenizer', 'node-llama-cpp', 'ajv'],
  // The bundles run as vm scripts, which cannot import() in Node 20: import() of what is left outside becomes
  // require() (builtins, typescript, gpt-tokenizer's CommonJS build).
  supported: { 'dynamic-import': false },
  // ES module code in a CommonJS bundle: import.meta.url is the bundle's own file URL.
  define: {
    'import.meta.url': '__textgen_import_meta_url',
    TEXTGEN_CONFIG_SCHEMA_ID: JSON.stringify(configSchemaId()),
  },
  banner: { js: 'var __textgen_import_meta_url=require("node:url").pathToFileURL(__filename).href;' },
  metafile: true,
  plugins: [lazyBuiltins],
};

const parser = await build({
  ...common,
  entryPoints: { cli: 'src/cli/launch/cli-entry.ts' },
  plugins: [...common.plugins, handlersLeftOut('dist/cli.cjs')],
});
const runner = await build({ ...common, entryPoints: { run: 'src/cli/launch/run-entry.ts' } });
const metafiles = [parser.metafile, runner.metafile];
/** Command key → the small runner bundle that holds its handler (the launcher's TEXTGEN_BUNDLE_IDS.runners). */
const runnerOf = {};
/** Small runner → its cold parts (part → the paths the runner asks it for). */
const partsOf = {};
for (const [name, keys] of Object.entries(SMALL_RUNNERS)) {
  const files = [...keys, ...KEPT_BY_EVERY_RUNNER].map((key) => `commands/${key.split(' ').join('/')}.ts`);
  for (const file of files)
    if (!existsSync(join(root, file))) throw new Error(`SMALL_RUNNERS.${name}: no command file ${file}`);
  const built = await buildWithColdParts(name, files);
  metafiles.push(...built.metafiles);
  partsOf[name] = built.parts;
  for (const key of keys) runnerOf[key] = name;
}
const bundleNames = [
  'cli',
  'run',
  ...Object.keys(SMALL_RUNNERS),
  ...Object.entries(partsOf).flatMap(([name, parts]) => Object.keys(parts).map((part) => `${name}.${part}`)),
];
const bundles = { metafile: mergeMetafiles(...metafiles) };
for (const name of bundleNames) asciiOnly(join(dist, `${name}.cjs`));
const id = (name) =>
  createHash('sha256')
    .update(readFileSync(join(dist, `${name}.cjs`)))
    .digest('hex')
    .slice(0, 16);
const ids = {
  cli: id('cli'),
  run: id('run'),
  runners: Object.fromEntries(
    Object.entries(runnerOf).map(([key, name]) => [
      key,
      {
        name,
        id: id(name),
        // Each part's bundle and path prefixes: the part of a module the runner asks for (src/cli/launch/launch.ts).
        parts: Object.fromEntries(
          Object.keys(partsOf[name]).map((part) => [
            part,
            { name: `${name}.${part}`, id: id(`${name}.${part}`), prefixes: prefixesOf(part) },
          ]),
        ),
      },
    ]),
  ),
};
const helpPages = await renderHelpPages(join(dist, 'cli.cjs'), join(dist, 'help'));
// What the launcher needs to tell which command a command line names (src/cli/route.ts) before loading any bundle:
// the command words and the global options' flags.
const parserBundle = createRequire(import.meta.url)(join(dist, 'cli.cjs'));
const route = {
  commands: parserBundle.COMMAND_SPECS.map((spec) => ({ path: spec.path })),
  globals: parserBundle.GLOBAL_OPTION_SPECS.map((o) => ({ flags: o.flags })),
};
await build({
  ...common,
  entryPoints: { launch: 'src/cli/launch/launch.ts' },
  define: {
    ...common.define,
    TEXTGEN_BUNDLE_IDS: JSON.stringify(ids),
    TEXTGEN_HELP_PAGES: JSON.stringify(helpPages),
    TEXTGEN_ROUTE: JSON.stringify(route),
  },
  // The launcher is an ordinary CommonJS module: its import() is Node's, and it lends it to the bundles
  // (src/import-esm.ts) for config files and ES-module-only packages.
  supported: {},
  metafile: false,
});
// What went into each bundle, for docs/performance.md and `esbuild --analyze`-style questions.
writeFileSync(join(dist, 'bundles.meta.json'), JSON.stringify(bundles.metafile));
// Last, once nothing here requires a bundle any more: each is written inside the CommonJS wrapper that
// src/cli/launch/compile-cache.ts compiles it in (WRAP_HEAD, WRAP_TAIL there), so the launcher hands V8 the text it
// read instead of a concatenated copy.
for (const name of bundleNames) {
  const file = join(dist, `${name}.cjs`);
  writeFileSync(file, `${WRAP_HEAD}${readFileSync(file, 'latin1')}${WRAP_TAIL}`, 'latin1');
}

/**
 * Help pages rendered now, by the parser bundle itself (commander, the specs): each command line of
 * `helpCommandLines` (src/cli/help-text.ts) that prints a page on stdout with exit 0 and nothing on stderr is stored
 * as `help/<n>.txt`; the launcher prints the file instead of building the command line (docs/performance.md).
 * Returns the launcher's index: command line key → page number. test/e2e/help-pages.test.ts checks every stored
 * page against what commander prints at run time.
 */
async function renderHelpPages(cliBundle, folder) {
  const cli = createRequire(import.meta.url)(cliBundle);
  const paths = cli.COMMAND_SPECS.map((spec) => spec.path);
  const groups = Object.keys(cli.COMMAND_GROUPS);
  const pages = [];
  const index = {};
  for (const argv of cli.helpCommandLines(paths, groups)) {
    let stdout = '';
    let stderr = '';
    const sink = (append) => ({
      write(chunk) {
        append(String(chunk));
        return true;
      },
      on() {
        return this;
      },
    });
    const io = {
      env: {},
      cwd: root,
      stdin: undefined,
      stdout: sink((s) => (stdout += s)),
      stderr: sink((s) => (stderr += s)),
    };
    const outcome = await cli.parseCommandLine([...argv], io);
    if (!('exitCode' in outcome) || outcome.exitCode !== 0 || stderr !== '' || stdout === '') continue;
    let page = pages.indexOf(stdout);
    if (page < 0) page = pages.push(stdout) - 1;
    index[cli.helpPageKey(argv)] = page;
  }
  mkdirSync(folder);
  pages.forEach((text, n) => writeFileSync(join(folder, `${n}.txt`), text));
  if (index[cli.helpPageKey(['--help'])] === undefined)
    throw new Error('textgen --help was not rendered at build time');
  return index;
}

/** One metafile for both bundles, as one build of two entry points would have written. */
function mergeMetafiles(...metafiles) {
  return {
    inputs: Object.assign({}, ...metafiles.map((m) => m.inputs)),
    outputs: Object.assign({}, ...metafiles.map((m) => m.outputs)),
  };
}

/**
 * esbuild escapes non-ASCII characters everywhere but in regular expression literals; one such character makes V8
 * hold the whole bundle as a two-byte string, which costs about 2 ms per run to read (docs/performance.md).
 * `\uXXXX` means the same character in any regular expression, with or without the u flag, for characters of the
 * Basic Multilingual Plane; anything beyond it stops the build rather than guess.
 */
function asciiOnly(file) {
  const text = readFileSync(file, 'utf8');
  if (/[^\u0000-\u007f]/.test(text) === false) return;
  if (/[\ud800-\udfff]/.test(text))
    throw new Error(`${file}: a character outside the Basic Multilingual Plane is left unescaped`);
  writeFileSync(
    file,
    text.replace(/[^\u0000-\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
  );
}
