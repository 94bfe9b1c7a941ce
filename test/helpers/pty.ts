import { execa } from 'execa';
import { BIN } from './run-cli.js';

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Runs the built binary under a pseudo-terminal (util-linux `script`), so stdin, stdout and stderr are TTYs as for
 * a person at a shell, with a sized window (a bare pty reports no width). `script` merges the streams into one
 * screen. CI, TEXTGEN_* and colour variables of the test process are left out; `env` adds the test's own.
 */
export async function runOnTerminal(args: string[], env: Record<string, string>): Promise<{ exitCode: number | undefined; screen: string }> {
  const command = `stty cols 100 rows 30; ${['node', BIN, ...args].map(quote).join(' ')}`;
  const baseEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && k !== 'CI' && !k.startsWith('TEXTGEN_') && k !== 'NO_COLOR' && k !== 'FORCE_COLOR') baseEnv[k] = v;
  }
  const r = await execa('script', ['-qec', command, '/dev/null'], {
    env: { ...baseEnv, TERM: 'xterm-256color', ...env },
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    timeout: 20_000,
  });
  if (r.timedOut) throw new Error(`textgen ${args.join(' ')} hung on a terminal`);
  return { exitCode: r.exitCode, screen: r.stdout };
}
