/**
 * The layering rules of the source tree, checked by `npm run lint:deps` (part of `npm test`). docs/architecture.md
 * explains each layer; a rule that fires names the import that broke it.
 */
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
      name: 'core-sees-adapters-through-the-registry',
      severity: 'error',
      comment:
        'src/ and commands/ reach providers only through profiles/types.ts and profiles/registry.ts; what a provider can do is a property of its adapter.',
      from: { path: '^(src|commands)/' },
      to: { path: '^profiles/', pathNot: '^profiles/(registry|emulators)\\.ts$' },
    },
    {
      name: 'client-never-imports-server',
      severity: 'error',
      comment:
        "An adapter's client code never depends on the emulated server (its own, another provider's, or serve's core).",
      from: { path: '^profiles/[^/]+/client/' },
      to: { path: '^(profiles/[^/]+/server/|src/emulator/)' },
    },
    {
      name: 'providers-stand-apart',
      severity: 'error',
      comment:
        'A provider folder imports only itself, profiles/common/ and the adapter types; providers never import each other.',
      from: { path: '^profiles/([^/]+)/' },
      to: { path: '^profiles/', pathNot: ['^profiles/$1/', '^profiles/(common|operations)/', '^profiles/types\\.ts$'] },
    },
    {
      name: 'common-is-client-side',
      severity: 'error',
      comment: 'profiles/common/ holds helpers of client adapters: it depends on no provider and no server.',
      from: { path: '^profiles/common/' },
      to: { path: '^(profiles/[^/]+/(client|server)/|src/emulator/)' },
    },
    {
      name: 'client-code-never-imports-the-emulator',
      severity: 'error',
      comment:
        'Only `serve` (commands/serve.ts) and the local profiles (src/cli/context-factory.ts, which start it in-process) load the emulator.',
      from: {
        path: '^(src|commands)/',
        pathNot: ['^src/emulator/', '^commands/serve\\.ts$', '^src/cli/context-factory\\.ts$'],
      },
      to: { path: '^src/emulator/' },
    },
    {
      name: 'emulator-core-is-protocol-neutral',
      severity: 'error',
      comment: "serve's core and engine know protocols only through the registry's emulator loaders.",
      from: { path: '^src/emulator/' },
      to: { path: '^profiles/[^/]+/' },
    },
    {
      name: 'routes-use-the-engine-seam',
      severity: 'error',
      comment:
        "Routes generate, tokenize and embed through ctx.server.engine (src/emulator/engine/engine.ts), never by importing an engine's implementation, so every engine serves every route.",
      from: { path: '^profiles/[^/]+/server/' },
      to: {
        path: '^src/emulator/engine/(generator|tokenizer|deterministic|planner|sampler)\\.ts$|^src/emulator/engine/llama/',
      },
    },
    {
      name: 'operation-types-are-types',
      severity: 'error',
      comment:
        'profiles/types.ts and profiles/operations/ describe adapters; they carry no code, so anything may import them.',
      from: { path: '^profiles/(types\\.ts|operations/)' },
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
