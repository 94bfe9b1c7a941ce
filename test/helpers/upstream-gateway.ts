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

/**
 * The two upstream profiles the gateway SDK tests share, as config lines: `up-openai` (OpenAI-compatible, bearer key)
 * and `up-wx` (watsonx, IAM exchange at the upstream), both against `upstreamUrl` with the key in UPSTREAM_KEY.
 * A test adds its own profiles after them.
 */
export function upstreamProfileLines(upstreamUrl: string): string[] {
  return [
    'profiles:',
    '  up-openai:',
    '    provider: openai',
    `    url: ${upstreamUrl}/v1`,
    '    auth: { type: bearer, token_env: UPSTREAM_KEY }',
    '    defaults: { model: gpt-4o-mini }',
    '  up-wx:',
    '    provider: watsonx',
    `    url: ${upstreamUrl}`,
    '    project_id: up-project',
    `    auth: { type: iam, apikey_env: UPSTREAM_KEY, iam_url: ${upstreamUrl}/identity/token }`,
    '    defaults: { model: ibm/granite-3-8b-instruct }',
  ];
}

/** `--upstream FRONT=PROFILE` for each front protocol of `routes`, in order: which upstream answers which front. */
export function upstreamArgs(routes: Record<string, 'up-openai' | 'up-wx'>): string[] {
  return Object.entries(routes).flatMap(([front, profile]) => ['--upstream', `${front}=${profile}`]);
}
