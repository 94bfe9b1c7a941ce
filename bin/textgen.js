#!/usr/bin/env node
// Tiny launcher: the real entry point returns an exit code instead of exiting (DESIGN §8).
import { main } from '../dist/src/main.js';

process.exitCode = await main(
  process.argv.slice(2),
  { env: process.env, cwd: process.cwd(), stdin: process.stdin, stdout: process.stdout, stderr: process.stderr },
  { handleSignals: true },
);
