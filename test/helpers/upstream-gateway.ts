/**
 * `textgen serve --upstream …` as a process, for the gateway tests: started on port 0 with a config file, resolved
 * once it says it listens (the upstream lines come before that line), killed by `stopGateways()`.
 */
import { execa, type ResultPromise } from 'execa';
import { BIN, baseEnv } from './run-cli.js';

export interface Gateway {
  url: string;
  stderr: () => string;
  child: ResultPromise;
}

const children: ResultPromise[] = [];

/** `globals` go before the command (`-p NAME`), `args` after `serve --port 0`. */
export async function startGateway(
  config: string,
  args: string[],
  env: Record<string, string>,
  globals: string[] = [],
): Promise<Gateway> {
  const child = execa('node', [BIN, '--config', config, ...globals, 'serve', '--port', '0', ...args], {
    env: { ...baseEnv(), CI: 'true', ...env },
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    timeout: 60_000,
  });
  children.push(child);
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr?.on('data', (b: Buffer) => {
      stderr += b.toString('utf8');
      const m = /listening on (https?:\/\/\S+)/.exec(stderr);
      if (m) resolve(m[1]!);
    });
    void child.then(() => reject(new Error(`serve ended before listening: ${stderr}`)));
  });
  return { url, stderr: () => stderr, child };
}

export function stopGateways(): void {
  for (const child of children.splice(0)) child.kill('SIGKILL');
}
