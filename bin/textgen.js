#!/usr/bin/env node
// Tiny launcher (CommonJS: bin/package.json): it starts sooner than an ES module entry. The real work is in
// dist/launch.cjs (src/cli/launch/launch.ts), which runs the bundles npm run build made. A bare `--version` is
// answered here, as launch.ts answers it, without compiling dist/launch.cjs and without making process.stdout (a
// stream whose set-up costs more than the rest of the answer): one write to fd 1.
'use strict';
const argv = process.argv.slice(2);
const path = require('node:path');
if (argv.length === 1 && argv[0] === '--version') {
  const fs = require('node:fs');
  const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'));
  const text = `${pkg.version ?? '0.0.0'}\n`;
  try {
    fs.writeSync(1, text);
  } catch (e) {
    // A non-blocking pipe that is full: the stream waits for it. A closed stdout (EPIPE): nobody reads the answer.
    if (e.code === 'EAGAIN') process.stdout.write(text);
  }
} else require('../dist/launch.cjs').launch(argv, path.join(__dirname, '..', 'dist'));
