#!/usr/bin/env node
// Tiny launcher (CommonJS: bin/package.json): it starts sooner than an ES module entry. The real work is in
// dist/launch.cjs (src/cli/launch/launch.ts), which answers --version itself and runs the bundles npm run build made.
'use strict';
require('../dist/launch.cjs').launch(process.argv.slice(2), require('node:path').join(__dirname, '..', 'dist'));
