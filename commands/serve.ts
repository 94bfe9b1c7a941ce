import type { CommandSpec } from '../src/command.js';
import type { Context } from '../src/context.js';

export const spec: CommandSpec = {
  path: ['serve'],
  summary: 'Run the embedded local server (watsonx protocol, deterministic engine) until Ctrl-C',
  description:
    'The same server the built-in local profiles start on their own, run in the foreground so that other\n' +
    'programs, or textgen with --provider and --url, can reach it. Its engine is deterministic: the same\n' +
    'prompt and parameters give the same text. --require-auth makes it check credentials like a real service.',
  options: [
    { flags: '--port <port>', description: 'port to listen on (0 = any free port)', },
    { flags: '--host <host>', description: 'address to bind (default 127.0.0.1)' },
    { flags: '--require-auth', description: 'demand credentials: IAM token, CPD token or ZenApiKey' },
    { flags: '--token-delay-ms <ms>', description: 'pause per generated token, to watch streaming (default 0)' },
  ],
  examples: [
    'textgen serve --port 8080',
    'textgen serve --port 8080 --token-delay-ms 50 --require-auth',
  ],
};

function nonNegativeInt(flag: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  const s = String(value);
  if (!/^\d+$/.test(s)) throw new Error(`${flag} must be a non-negative integer, got "${s}"`);
  return Number(s);
}

export async function run(options: Record<string, unknown>, ctx: Context): Promise<number> {
  const { UsageError } = await import('../src/errors.js');
  let port: number;
  let tokenDelayMs: number;
  try {
    port = nonNegativeInt('--port', options.port, 8080);
    tokenDelayMs = nonNegativeInt('--token-delay-ms', options.tokenDelayMs, 0);
    if (port > 65535) throw new Error(`--port must be at most 65535, got ${port}`);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const host = typeof options.host === 'string' ? options.host : '127.0.0.1';
  const { startServer } = await import('../src/server/index.js');
  let server;
  try {
    server = await startServer({
      host,
      port,
      requireAuth: options.requireAuth === true,
      tokenDelayMs,
      log: ctx.reporter.verbose ? (line) => ctx.reporter.trace(line) : undefined,
    });
  } catch (e) {
    const { NetworkError } = await import('../src/errors.js');
    throw new NetworkError(`cannot listen on ${host}:${port}: ${(e as Error).message}`);
  }
  ctx.reporter.info(`textgen serve: listening on ${server.url} (Ctrl-C to stop)`);
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) resolve();
    ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await server.close();
  ctx.reporter.info('textgen serve: stopped');
  return 0;
}
