/**
 * Keeps test/unit what its name promises: tests of modules in-process, with no socket listening and no child
 * process. A test file under test/unit that starts a server or spawns a program fails with a message saying where it
 * belongs (test/integration); every other folder is left alone. Loaded for every test file by vitest.config.ts
 * (`setupFiles`), which runs this once per file before the file itself.
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import { expect } from 'vitest';

interface Purity {
  /** The test file now running in this worker is under test/unit. */
  armed: boolean;
  file: string;
}

const KEY = Symbol.for('textgen.test.unit-purity');
const store = globalThis as unknown as Record<symbol, Purity | undefined>;

function refuse(what: string): never {
  const state = store[KEY]!;
  throw new Error(
    `${state.file} is a unit test but ${what}: tests that listen on a socket or spawn a process belong in test/integration (see test/README.md)`,
  );
}

const SPAWNERS = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;

/** Wraps the entry points once per worker process; whether they refuse is decided per file by `armed`. */
function install(): Purity {
  const state: Purity = { armed: false, file: '' };
  const listen = net.Server.prototype.listen;
  net.Server.prototype.listen = function (this: net.Server, ...args: Parameters<typeof listen>) {
    if (state.armed) refuse('it listens on a socket');
    return listen.apply(this, args);
  } as typeof listen;
  const functions = childProcess as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const name of SPAWNERS) {
    const original = functions[name]!;
    functions[name] = function (this: unknown, ...args: unknown[]) {
      if (state.armed) refuse(`it runs a process (${name} ${String(args[0])})`);
      return original.apply(this, args);
    };
  }
  // `import { spawn } from 'node:child_process'` reads the ESM bindings: bring them in line with the wrapped ones.
  syncBuiltinESMExports();
  return state;
}

const state = (store[KEY] ??= install());
state.file = expect.getState().testPath ?? '';
state.armed = /[\\/]test[\\/]unit[\\/]/.test(state.file);
