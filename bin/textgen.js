#!/usr/bin/env node
// Tiny launcher: the real entry point returns an exit code instead of exiting (DESIGN §8).
import { setFlagsFromString } from 'node:v8';

// undici compiles its HTTP parser (WebAssembly) when it loads; with tier-up on, Node waits at exit for the
// optimising compiler to finish — about 150 ms on every command that talks to a service (bench/results.md).
// The baseline compiler parses HTTP framing fast enough. It must be set before anything compiles WebAssembly.
setFlagsFromString('--liftoff-only');
const { main } = await import('../dist/src/main.js');

process.exitCode = await main(
  process.argv.slice(2),
  { env: process.env, cwd: process.cwd(), stdin: process.stdin, stdout: process.stdout, stderr: process.stderr },
  { handleSignals: true },
);
