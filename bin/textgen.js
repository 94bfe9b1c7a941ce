#!/usr/bin/env node
// Tiny launcher (CommonJS: bin/package.json): it starts sooner than an ES module entry. The real work is in
// dist/launch.cjs (src/launch/launch.ts), which answers --version itself and runs the bundles npm run build made.
'use strict';
const { setFlagsFromString } = require('node:v8');

// undici compiles its HTTP parser (WebAssembly) when it loads; with tier-up on, Node waits at exit for the
// optimising compiler to finish — about 150 ms on every command that talks to a service (bench/results.md).
// The baseline compiler parses HTTP framing fast enough. It must be set before anything compiles WebAssembly
// (and before the code cache is read: V8 keeps a cache only for the flags it was made with).
setFlagsFromString('--liftoff-only');
require('../dist/launch.cjs').launch(process.argv.slice(2), require('node:path').join(__dirname, '..', 'dist'));
