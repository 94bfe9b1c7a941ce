// Shared helpers for the bench scripts: timed child processes, medians, helper servers in their own processes.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// BENCH_BIN runs another build of the CLI (e.g. a copy of an earlier commit) through the same bench.
export const bin = process.env.BENCH_BIN ?? join(root, 'bin', 'textgen.js');
export const quick = process.env.BENCH_QUICK === '1';

/**
 * The environment every measured process runs with: this process's, without what changes how Node or textgen
 * start. NODE_EXTRA_CA_CERTS makes Node parse a whole CA bundle at every start (~30 ms here), NODE_OPTIONS adds
 * flags (and preloads), TEXTGEN_* and proxies change what a command does. `extra` is added on top.
 */
export function cleanEnv(extra = {}) {
  const env = { ...process.env };
  for (const name of Object.keys(env))
    if (
      /^NODE_/.test(name) ||
      name.startsWith('TEXTGEN_') ||
      /^(https?|no|all)_proxy$/i.test(name) ||
      name === 'UV_THREADPOOL_SIZE'
    )
      delete env[name];
  return { ...env, CI: 'true', ...extra };
}

/** Names of the variables cleanEnv takes out that are set here (for the results header). */
export function removedEnvNames() {
  const kept = cleanEnv();
  return Object.keys(process.env).filter((name) => !(name in kept));
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function envNumber(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got ${raw}`);
  return n;
}

const ms = (from, to) => Number(to - from) / 1e6;

/**
 * Runs a command with stdout on a pipe this process drains (counting bytes, keeping the last `keepTail` bytes) and
 * the end of stderr captured, bounded by `timeoutMs`. Times are in ms from just before spawn: first and last stdout byte, and exit.
 */
export function runTimed(
  command,
  args,
  { env, timeoutMs = 120_000, stdin = 'ignore', keepTail = 0, countLines = false } = {},
) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(command, args, { stdio: [stdin, 'pipe', 'pipe'], env: cleanEnv(env) });
    let firstByteMs;
    let lastByteMs;
    let bytes = 0;
    let lines = 0;
    let tail = Buffer.alloc(0);
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', (chunk) => {
      lastByteMs = ms(t0, process.hrtime.bigint());
      firstByteMs ??= lastByteMs;
      bytes += chunk.length;
      if (countLines) for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines += 1;
      if (keepTail > 0) tail = Buffer.concat([tail, chunk]).subarray(-keepTail);
    });
    child.stderr.on('data', (chunk) => {
      // The end of stderr is what matters (the error, or /usr/bin/time's report).
      stderr = (stderr + chunk).slice(-8000);
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        code,
        signal,
        ms: ms(t0, process.hrtime.bigint()),
        firstByteMs,
        lastByteMs,
        bytes,
        lines,
        tail: tail.toString('utf8'),
        stderr,
        pid: child.pid,
      });
    });
  });
}

/**
 * Starts a helper server as a separate process that prints one JSON line (with at least `url`) once listening,
 * and may print one more JSON line when it is stopped (SIGTERM), e.g. the CPU time it used.
 * Returns the first line parsed, plus `stop()`, which resolves with the last one (or undefined).
 */
export function startHelper(script, args = [], env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: cleanEnv(env),
    });
    let out = '';
    let ready = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} did not start within 30 s`));
    }, 30_000);
    const exited = new Promise((done) => child.once('exit', done));
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const nl = out.indexOf('\n');
      if (ready || nl === -1) return;
      ready = true;
      clearTimeout(timer);
      const info = JSON.parse(out.slice(0, nl));
      resolve({
        ...info,
        pid: child.pid,
        stop: async () => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
          await exited;
          clearTimeout(killer);
          const lines = out.trim().split('\n');
          return lines.length > 1 ? JSON.parse(lines[lines.length - 1]) : undefined;
        },
      });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (!ready) reject(new Error(`${script} exited (${code}) before it was ready`));
    });
  });
}

/** For helpers: on SIGTERM, report the CPU time used and `extra()` (one JSON line on stdout), then run `close` and exit. */
export function reportCpuOnTerm(close = async () => {}, extra = () => ({})) {
  process.on('SIGTERM', () => {
    const { user, system } = process.cpuUsage();
    process.stdout.write(`${JSON.stringify({ cpuMs: (user + system) / 1000, ...extra() })}\n`, () => {
      void close().finally(() => process.exit(0));
    });
  });
}

export const hasCommand = (path) => existsSync(path);

/**
 * User and system CPU ms another process has used so far, all its threads (Linux /proc, clock ticks of 10 ms);
 * undefined where there is no /proc or the process is gone.
 */
export function processCpu(pid) {
  try {
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the command name.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 };
  } catch {
    return undefined;
  }
}
