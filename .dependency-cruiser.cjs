/**
 * The layering rules of the source tree, checked by `npm run lint:deps` and test/lint/layering.test.ts (part of
 * `npm test`, with a fixture tree in which each rule fires). docs/architecture.md draws the layers; a rule that
 * fires names the import that broke it.
 *
 *   src/contract/        the vocabulary every layer shares; imports nothing else
 *   profiles/<kind>/     a provider: its client side (adapter.ts, capabilities.ts, client/, shared top-level files)
 *                        maps canonical ⇄ wire; its server/ side answers that wire in `serve`
 *   src/emulator/        `serve`'s framework (core/) and engines (engine/): no CLI, no protocol
 *   src/ (the rest)      the CLI core; reaches providers only through profiles/registry.ts
 *   commands/            one file per command
 *   src/cli/             the composition root: the only importer of commands/, imported by nobody (bin/ runs it)
 * The libraries src/tokenizers/, src/import-esm.ts and src/version.ts import only the contract, so the emulator and
 * the servers may use them too.
 */

/** Local modules, as opposed to Node's builtins and npm packages. */
const LOCAL = '^(src|commands|profiles|bin)/';
const CONTRACT = '^src/contract/';
const LIBRARIES = '^src/(tokenizers/|import-esm\\.ts$|version\\.ts$)';
const EMULATOR_FRAMEWORK = '^src/emulator/(core|engine)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'No import cycle, static or dynamic: each module can be understood (and loaded) after what it imports.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'contract-imports-nothing-else',
      severity: 'error',
      comment:
        'src/contract/ is the floor every layer stands on: it imports only itself and Node builtins, no package and no other layer.',
      from: { path: CONTRACT },
      to: { pathNot: CONTRACT, dependencyTypesNot: ['core'] },
    },
    {
      name: 'libraries-import-only-the-contract',
      severity: 'error',
      comment:
        'The offline tokenizers, the ES-module loader and the package version are libraries the CLI, the emulator and the servers share: they import only the contract and themselves.',
      from: { path: LIBRARIES },
      to: { path: LOCAL, pathNot: [CONTRACT, LIBRARIES] },
    },
    {
      name: 'provider-client-maps-only',
      severity: 'error',
      comment:
        "A provider's client side (adapter.ts, capabilities.ts, client/, its top-level wire files) imports only src/contract/, profiles/common/ and its own folder (not its server/): no terminal, flag, prompt or output code, and no other provider.",
      from: { path: '^profiles/(?!common/|server-common/)([^/]+)/(?!server/)' },
      to: { path: LOCAL, pathNot: [CONTRACT, '^profiles/common/', '^profiles/$1/(?!server/)'] },
    },
    {
      name: 'common-is-client-side',
      severity: 'error',
      comment: 'profiles/common/ holds helpers of client adapters: it imports only src/contract/ and itself.',
      from: { path: '^profiles/common/' },
      to: { path: LOCAL, pathNot: [CONTRACT, '^profiles/common/'] },
    },
    {
      name: 'provider-server-uses-the-framework',
      severity: 'error',
      comment:
        "A provider's server/ side imports only src/contract/, the emulator's framework and engine seam (src/emulator/core, src/emulator/engine), profiles/server-common/ (wire writers more than one protocol uses), the libraries and its own folder (not its client/).",
      from: { path: '^profiles/([^/]+)/server/' },
      to: {
        path: LOCAL,
        pathNot: [CONTRACT, EMULATOR_FRAMEWORK, '^profiles/server-common/', LIBRARIES, '^profiles/$1/(?!client/)'],
      },
    },
    {
      name: 'server-common-is-server-side',
      severity: 'error',
      comment:
        "profiles/server-common/ holds wire writers several protocols' servers share: it imports only src/contract/, the emulator framework, the libraries and itself.",
      from: { path: '^profiles/server-common/' },
      to: { path: LOCAL, pathNot: [CONTRACT, EMULATOR_FRAMEWORK, LIBRARIES, '^profiles/server-common/'] },
    },
    {
      name: 'routes-use-the-engine-seam',
      severity: 'error',
      comment:
        "Routes generate, tokenize and embed through ctx.server.engine (src/emulator/engine/engine.ts), never by importing an engine's implementation, so every engine serves every route.",
      from: { path: '^profiles/([^/]+/server|server-common)/' },
      to: {
        path: '^src/emulator/engine/(generator|tokenizer|deterministic|planner|sampler)\\.ts$|^src/emulator/engine/llama/',
      },
    },
    {
      name: 'provider-tables-list-providers',
      severity: 'error',
      comment:
        'profiles/registry.ts lists the adapters (their adapter.ts) and profiles/emulators.ts the protocols serve answers (their server/index.ts); neither holds anything else.',
      from: { path: '^profiles/(registry|emulators)\\.ts$' },
      to: {
        path: LOCAL,
        pathNot: [
          CONTRACT,
          '^profiles/[^/]+/adapter\\.ts$',
          '^profiles/[^/]+/server/index\\.ts$',
          '^src/emulator/core/router\\.ts$',
        ],
      },
    },
    {
      name: 'emulator-stands-alone',
      severity: 'error',
      comment:
        "The emulator (src/emulator/) imports nothing of the CLI core: only itself, the contract, the libraries and the protocol table (profiles/emulators.ts), through which it gets every protocol's routes.",
      from: { path: '^src/emulator/' },
      to: { path: LOCAL, pathNot: ['^src/emulator/', CONTRACT, LIBRARIES, '^profiles/emulators\\.ts$'] },
    },
    {
      name: 'core-reaches-providers-through-the-registry',
      severity: 'error',
      comment:
        'The CLI core, the commands and the composition root reach providers only through profiles/registry.ts; what a provider can do is a property of its adapter.',
      from: { path: '^(src/(?!emulator/|contract/)|commands/)' },
      to: { path: '^profiles/', pathNot: '^profiles/registry\\.ts$' },
    },
    {
      name: 'only-the-cli-imports-commands',
      severity: 'error',
      comment:
        'commands/ is assembled by the composition root (src/cli/commands.ts) alone: the core never calls up into a command.',
      from: { path: '^(src|profiles)/', pathNot: '^src/cli/' },
      to: { path: '^commands/' },
    },
    {
      name: 'nothing-imports-the-composition-root',
      severity: 'error',
      comment: 'src/cli/ is the top: only bin/textgen.js (through the bundles) and tests import it.',
      from: { path: LOCAL, pathNot: '^src/cli/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'client-code-never-imports-the-emulator',
      severity: 'error',
      comment:
        'Only `serve` (commands/serve.ts), its gateway (src/gateway/: the upstream engine it hands the server) and the composition root (src/cli/local-server.ts, which starts it for a local profile) load the emulator.',
      from: {
        path: '^(src|commands)/',
        pathNot: ['^src/emulator/', '^src/gateway/', '^commands/serve\\.ts$', '^src/cli/local-server\\.ts$'],
      },
      to: { path: '^src/emulator/' },
    },
    {
      name: 'only-the-call-pipeline-reads-answers',
      severity: 'error',
      comment:
        "The SSE parser (src/http/sse-parser.ts) and the mapping of a non-2xx status to an error (src/call/status-error.ts) belong to the call pipeline, src/call/: every command sends through sendOk, readWhole, readStream, the batch line sender or (health) sendProbe, so no copy of either drifts. The emulator writes SSE and never imports the parser. Left out on purpose: watsonx's IAM/CPD token exchange (profiles/watsonx/client/auth.ts) reads the statuses of the token service itself — that is not a service answer, and the client side may not import src/call/.",
      from: { path: LOCAL, pathNot: '^src/call/' },
      to: { path: '^src/(http/sse-parser|call/status-error)\\.ts$' },
    },
    {
      name: 'adapter-interfaces-are-types',
      severity: 'error',
      comment:
        'src/contract/adapter.ts and src/contract/adapter-operations/ describe adapters; they carry no code, so anything may import them.',
      from: { path: '^src/contract/(adapter\\.ts|adapter-operations/)' },
      to: { dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules)/' },
    // Type-only imports vanish at run time, but a cycle through them is still a tangle: follow them too.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
      extensions: ['.ts', '.js'],
    },
    // `./x.js` in TypeScript source means `./x.ts`.
    extraExtensionsToScan: [],
  },
};
