#!/usr/bin/env node
// Tiny launcher (CommonJS: bin/package.json): it starts sooner than an ES module entry. The real work is in
// dist/launch.cjs (src/cli/launch/launch.ts), which runs the bundles npm run build made. A bare `--version` is
// answered here, as launch.ts answers it, without compiling dist/launch.cjs first (6 % of that run's instructions).
'use strict';
const argv = process.argv.slice(2);
const path = require('node:path');
if (argv.length === 1 && argv[0] === '--version') {
  const pkg = JSON.parse(require('node:fs').readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'));
  process.stdout.write(`${pkg.version ?? '0.0.0'}\n`);
} else require('../dist/launch.cjs').launch(argv, path.join(__dirname, '..', 'dist'));
