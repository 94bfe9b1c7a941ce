import { execFileSync } from 'node:child_process';
import { readdirSync, readlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TINY_PNG } from '../helpers/aleph-alpha-task-fixtures.js';
import { startRecordingProxy, type RecordingProxy } from '../helpers/recording-proxy.js';
import { baseEnv, BIN, makeHome, runBin } from '../helpers/run-cli.js';
import { json, useTinyServers } from '../helpers/tiny-server.js';

/**
 * Hostile files, URLs and answers on the client side (docs/reliability.md, "Hostile answers and inputs, client
 * side"): each case through the built CLI, exit code, stdout and stderr apart.
 */
const home = makeHome();
let runs = 0;
afterAll(() => {
  home.cleanup();
  // The figure docs/reliability.md quotes; every run above also had its exit code, stdout and stderr checked.
  console.log(`hostile client: ${runs} CLI runs through bin/textgen.js, 0 hangs, 0 stack traces`);
});

const run = (args: string[], env: Record<string, string> = {}) => {
  runs += 1;
  return runBin(args, { env: { ...home.env, ...env }, cwd: home.dir, timeout: 30_000 });
};

/** One `error:` line (and maybe a hint), nothing on stdout, no stack trace. */
function expectOneError(r: { stdout: string; stderr: string }, pattern: RegExp): void {
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(pattern);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.stderr.split('\n').filter((l) => l.startsWith('error:'))).toHaveLength(1);
}

/** Whether process `pid` has `path` open. */
function holdsOpen(pid: number, path: string): boolean {
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`) === path;
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

/** Polls a condition the test cannot be told about (another process's state), every 20 ms, up to 20 s. */
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 20));
  if (!condition()) throw new Error('condition never held');
}

describe('files given to --image and --document are read up to a bound', () => {
  it('--image @/dev/zero stops at 5 MiB with a usage error naming the flag and the limit', async () => {
    const r = await run(['--profile', 'local-aa', 'complete', '--image', '@/dev/zero', 'What is this?']);
    expectOneError(r, /^error: --image: \/dev\/zero is larger than 5 MiB, the most --image reads\n/);
    expect(r.exitCode).toBe(2);
  });

  it('a 4 GiB sparse file as --document is refused without reading it whole', async () => {
    const big = join(home.dir, 'big.txt');
    writeFileSync(big, 'a');
    truncateSync(big, 4 * 1024 ** 3);
    const r = await run(['--profile', 'local-aa', 'qa', '--query', 'Where?', '--document', `@${big}`]);
    expectOneError(r, /^error: --document: .*big\.txt is larger than 5 MiB, the most --document reads\n/);
    expect(r.exitCode).toBe(2);
  });

  it('--document @/dev/zero on summarize stops at the bound too', async () => {
    const r = await run(['--profile', 'local-aa', 'summarize', '--document', '@/dev/zero']);
    expectOneError(r, /^error: --document: \/dev\/zero is larger than 5 MiB/);
    expect(r.exitCode).toBe(2);
  });

  it.skipIf(process.platform !== 'linux')('a FIFO that nobody writes to: Ctrl-C ends the wait (exit 130)', async () => {
    const fifo = join(home.dir, 'nobody.png');
    execFileSync('mkfifo', [fifo]);
    runs += 1;
    const child = execa('node', [BIN, '--profile', 'local-aa', 'complete', '--image', `@${fifo}`, 'x'], {
      env: { ...baseEnv(), CI: 'true', ...home.env },
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
      cwd: home.dir,
      timeout: 30_000,
    });
    // The CLI is ready for the signal once it holds the FIFO open (Linux: one of its descriptors points at it).
    // Opening the FIFO for writing to find out would connect a writer, which is not the case under test.
    await until(() => holdsOpen(child.pid!, fifo));
    child.kill('SIGINT');
    const r = await child;
    expect(r.timedOut).toBe(false);
    expect(r.exitCode).toBe(130);
    expect(r.stdout).toBe('');
  });

  it('a FIFO that trickles bytes: Ctrl-C mid-read ends the command (exit 130)', async () => {
    const fifo = join(home.dir, 'trickle.png');
    execFileSync('mkfifo', [fifo]);
    runs += 1;
    const child = execa('node', [BIN, '--profile', 'local-aa', 'complete', '--image', `@${fifo}`, 'x'], {
      env: { ...baseEnv(), CI: 'true', ...home.env },
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
      cwd: home.dir,
      timeout: 30_000,
    });
    // Opening for writing completes once the CLI opened the FIFO for reading.
    const writer = await open(fifo, 'w');
    await writer.write(TINY_PNG.subarray(0, 16));
    child.kill('SIGINT');
    const r = await child;
    await writer.close().catch(() => undefined);
    expect(r.timedOut).toBe(false);
    expect(r.exitCode).toBe(130);
    expect(r.stdout).toBe('');
  });
});

describe('the embedded server of the local profiles is never reached through a proxy', () => {
  let proxy: RecordingProxy;
  beforeAll(async () => {
    proxy = await startRecordingProxy();
  });
  afterAll(() => proxy.close());

  it.each(['local', 'local-azure', 'local-openai', 'local-aa', 'local-oip'])(
    '--profile %s with HTTP_PROXY and HTTPS_PROXY set: answered, the proxy sees nothing',
    async (profile) => {
      const proxyEnv = {
        HTTP_PROXY: proxy.url,
        HTTPS_PROXY: proxy.url,
        http_proxy: proxy.url,
        NO_PROXY: 'example.com',
      };
      const r = await run(['--profile', profile, 'complete', '--max-tokens', '3', 'Tell me about rivers'], proxyEnv);
      expect(r.stderr).toBe('');
      expect(r.exitCode).toBe(0);
      expect(r.stdout).not.toBe('');
      expect(proxy.uses).toEqual([]);
    },
  );
});

describe('user:password@ in --url', () => {
  const tiny = useTinyServers();
  const completion = {
    id: 'cmpl-1',
    object: 'text_completion',
    created: 0,
    model: 'm',
    choices: [{ text: 'hello there', index: 0, finish_reason: 'stop', logprobs: null }],
    usage: { prompt_tokens: 2, completion_tokens: 2, total_tokens: 4 },
  };
  const withUser = (url: string) => url.replace('http://', 'http://us%40er:p%3As5word@');

  it('is sent as HTTP Basic auth when it is the only credential; -v shows neither the password nor the header', async () => {
    const seen: Array<string | undefined> = [];
    const server = await tiny((req, res) => {
      seen.push(req.headers.authorization);
      json(res, 200, completion);
    });
    const r = await run([
      '-v',
      '--provider',
      'openai',
      '--url',
      withUser(`${server.url}/v1`),
      'complete',
      '-m',
      'm',
      'Hi',
    ]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe('hello there\n');
    expect(seen).toEqual([`Basic ${Buffer.from('us@er:p:s5word').toString('base64')}`]);
    const basic = Buffer.from('us@er:p:s5word').toString('base64');
    for (const secret of ['p:s5word', 'p%3As5word', basic]) expect(r.stderr).not.toContain(secret);
    expect(r.stderr).toContain('us%40er:***@');
  });

  it('--dry-run keeps it in the curl line with the password masked (curl sends it as Basic auth too)', async () => {
    const server = await tiny((_req, res) => json(res, 200, completion));
    const r = await run([
      '--provider',
      'openai',
      '--url',
      withUser(`${server.url}/v1`),
      'complete',
      '-m',
      'm',
      'Hi',
      '--dry-run',
    ]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(`'http://us%40er:***@127.0.0.1:`);
    expect(r.stdout).not.toContain('s5word');
    expect(server.seen).toEqual([]);
  });

  it('with --token as well: refused before anything is sent (exit 2), naming both', async () => {
    const server = await tiny((_req, res) => json(res, 200, completion));
    const r = await run([
      '--provider',
      'openai',
      '--url',
      withUser(`${server.url}/v1`),
      '--token',
      'tok-123456',
      'complete',
      '-m',
      'm',
      'Hi',
    ]);
    expectOneError(
      r,
      /^error: the URL http:\/\/us%40er:\*\*\*@127\.0\.0\.1:\d+\/v1 carries user:password@, and profile ".*" has a credential too \(bearer\): give one of them\nhint: /,
    );
    expect(r.stderr).not.toContain('s5word');
    expect(r.exitCode).toBe(2);
    expect(server.seen).toEqual([]);
  });

  it('a failing request names the URL without the password', async () => {
    const server = await tiny((_req, res) => json(res, 500, { error: { message: 'boom', type: 'server_error' } }));
    const r = await run([
      '--retries',
      '0',
      '--provider',
      'openai',
      '--url',
      withUser(`${server.url}/v1`),
      'complete',
      '-m',
      'm',
      'Hi',
    ]);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).not.toContain('s5word');
  });
});

describe('a "__proto__" key in --extra', () => {
  it.each([
    [
      'deployment text-generate',
      ['--profile', 'local', 'deployment', 'text-generate', '--id-or-name', 'demo', '--input', 'Hi'],
      '{"__proto__":{"x":1}}',
      '__proto__',
    ],
    [
      'complete',
      ['--profile', 'local-openai', 'complete', '-m', 'm', 'Hi'],
      '{"logit_bias":{"__proto__":{"1":2}}}',
      'logit_bias.__proto__',
    ],
    ['chat', ['--profile', 'local-openai', 'chat', '-m', 'm', 'Hi'], '{"__proto__":{"seed":1}}', '__proto__'],
  ])(
    'is refused like an unknown field of --parameters (%s, exit 2, nothing sent)',
    async (_name, args, extra, field) => {
      const r = await run([...args, '--extra', extra]);
      expectOneError(r, new RegExp(`^error: --extra: unknown field "${field.replace(/\./g, '\\.')}"\\nhint: `));
      expect(r.exitCode).toBe(2);
    },
  );

  it('--parameters already refused it in the same words', async () => {
    const r = await run([
      '--profile',
      'local',
      'deployment',
      'text-generate',
      '--id-or-name',
      'demo',
      '--input',
      'Hi',
      '--parameters',
      '{"__proto__":{"top_k":1}}',
    ]);
    expectOneError(r, /^error: --parameters: unknown field "__proto__"/);
    expect(r.exitCode).toBe(2);
  });
});

describe('numbers in answers the output cannot carry', () => {
  const tiny = useTinyServers();
  const raw = (res: import('node:http').ServerResponse, text: string, type = 'application/json') => {
    res.writeHead(200, { 'content-type': type, 'content-length': String(Buffer.byteLength(text)) });
    res.end(text);
  };
  const watsonx = (url: string, more: string[] = []) => [
    '--provider',
    'watsonx',
    '--url',
    url,
    '--token',
    'tok-123456',
    '--retries',
    '0',
    'deployment',
    'text-generate',
    '--id-or-name',
    'demo',
    '--input',
    'Hi',
    ...more,
  ];

  it.each([
    [
      '1e400 as a token count',
      '{"model_id":"m","results":[{"generated_text":"hi","generated_token_count":2,"input_token_count":1e400,"stop_reason":"eos_token"}]}',
      /"results\[0\]\.input_token_count" is not a finite number/,
    ],
    [
      'a negative token count',
      '{"model_id":"m","results":[{"generated_text":"hi","generated_token_count":-3,"input_token_count":2,"stop_reason":"eos_token"}]}',
      /"results\[0\]\.generated_token_count" is -3, not a count/,
    ],
    [
      'a fractional token count',
      '{"model_id":"m","results":[{"generated_text":"hi","generated_token_count":2.5,"input_token_count":2,"stop_reason":"eos_token"}]}',
      /"results\[0\]\.generated_token_count" is 2\.5, not a count/,
    ],
    [
      '-1e400 as a log-probability',
      '{"model_id":"m","results":[{"generated_text":"hi","generated_token_count":1,"input_token_count":2,"stop_reason":"eos_token","generated_tokens":[{"text":"hi","logprob":-1e400}]}]}',
      /"results\[0\]\.generated_tokens\[0\]\.logprob" is not a finite number/,
    ],
  ])('%s: exit 4 naming the field, for -o json and for text', async (_name, body, pattern) => {
    const server = await tiny((_req, res) => raw(res, body));
    for (const output of [['-o', 'json'], []]) {
      const r = await run(watsonx(server.url, output));
      expectOneError(r, new RegExp(`^error: watsonx returned HTTP 200: unexpected answer: ${pattern.source}`));
      expect(r.exitCode).toBe(4);
    }
  });

  it('chat usage from an OpenAI-compatible server: a negative count is exit 4 naming it', async () => {
    const server = await tiny((_req, res) =>
      raw(
        res,
        '{"id":"c","object":"chat.completion","created":0,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":-7,"total_tokens":-6}}',
      ),
    );
    const r = await run([
      '--provider',
      'openai',
      '--url',
      `${server.url}/v1`,
      '--retries',
      '0',
      'chat',
      '-m',
      'm',
      'Hi',
      '-o',
      'json',
    ]);
    expectOneError(r, /^error: openai returned HTTP 200: unexpected answer: "usage\.\w+" is -\d, not a count/);
    expect(r.exitCode).toBe(4);
  });

  it('embed: 1e400 inside a vector is exit 4 naming it', async () => {
    const server = await tiny((_req, res) =>
      raw(
        res,
        '{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,1e400]}],"model":"m","usage":{"prompt_tokens":1,"total_tokens":1}}',
      ),
    );
    const r = await run([
      '--provider',
      'openai',
      '--url',
      `${server.url}/v1`,
      '--retries',
      '0',
      'embed',
      '-m',
      'm',
      'Hi',
      '-o',
      'json',
    ]);
    expectOneError(r, /^error: openai returned HTTP 200: unexpected answer: ".*\[1\]" is not a finite number/);
    expect(r.exitCode).toBe(4);
  });

  it('a streamed event with a negative count ends the stream as malformed, naming the field', async () => {
    const server = await tiny((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(
        'id: 1\nevent: message\ndata: {"model_id":"m","results":[{"generated_text":"hi","generated_token_count":1,"input_token_count":2,"stop_reason":"not_finished"}]}\n\n',
      );
      res.end(
        'id: 2\nevent: message\ndata: {"model_id":"m","results":[{"generated_text":"","generated_token_count":-1,"input_token_count":2,"stop_reason":"eos_token"}]}\n\n',
      );
    });
    const r = await run([
      '--provider',
      'watsonx',
      '--url',
      server.url,
      '--token',
      'tok-123456',
      '--retries',
      '0',
      'deployment',
      'text-generate-stream',
      '--id-or-name',
      'demo',
      '--input',
      'Hi',
    ]);
    expect(r.stderr).toMatch(/"results\[0\]\.generated_token_count" is -1, not a count/);
    expect(r.stdout).toBe('hi\n');
    expect(r.exitCode).toBe(6);
  });
});

describe('an IAM URL where no token service answers', () => {
  const tiny = useTinyServers();
  const generate = (url: string, iamUrl: string) =>
    run(
      [
        '--provider',
        'watsonx',
        '--url',
        url,
        '--retries',
        '0',
        'deployment',
        'text-generate',
        '--id-or-name',
        'demo',
        '--input',
        'Hi',
      ],
      {
        TEXTGEN_API_KEY: 'local-apikey',
        TEXTGEN_IAM_URL: iamUrl,
      },
    );

  it('serve --require-auth prints the IAM URL to use, and that URL works; its base URL is "no token service" (exit 3)', async () => {
    runs += 1;
    const serve = execa('node', [BIN, 'serve', '--port', '0', '--require-auth'], {
      env: { ...baseEnv(), CI: 'true', ...home.env },
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
      cwd: home.dir,
      timeout: 60_000,
    });
    try {
      const iamUrl = await new Promise<string>((resolve, reject) => {
        let seen = '';
        serve.stderr!.on('data', (chunk: Buffer) => {
          seen += chunk.toString();
          const found =
            /^textgen serve: IAM token URL (http:\/\/\S+) \(a watsonx profile's auth\.iam_url, or TEXTGEN_IAM_URL\)$/m.exec(
              seen,
            );
          if (found) resolve(found[1]!);
        });
        serve.once('exit', () => reject(new Error(`serve ended: ${seen}`)));
      });
      const base = iamUrl.replace(/\/identity\/token$/, '');
      expect(iamUrl).toBe(`${base}/identity/token`);
      const works = await generate(base, iamUrl);
      expect(works.stderr).not.toMatch(/^error:/m);
      expect(works.exitCode).toBe(0);
      const wrong = await generate(base, base);
      expectOneError(
        wrong,
        new RegExp(
          `^error: no token service at ${base.replace(/\./g, '\\.')} \\(IBM Cloud IAM token exchange: HTTP 404\\)\\nhint: .*identity/token`,
        ),
      );
      expect(wrong.stderr).not.toMatch(/rejected/);
      expect(wrong.exitCode).toBe(3);
    } finally {
      serve.kill('SIGINT');
      await serve;
    }
  });

  it('a web page in answer to the exchange (a 200 login page) is "no token service" too', async () => {
    const page = await tiny((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!DOCTYPE html><html><body>Sign in</body></html>');
    });
    const r = await generate(page.url, `${page.url}/login`);
    expectOneError(
      r,
      /^error: no token service at http:\/\/127\.0\.0\.1:\d+\/login \(IBM Cloud IAM token exchange: HTTP 200 with a web page\)/,
    );
    expect(r.exitCode).toBe(3);
    expect(page.seen).toEqual(['POST /login']);
  });
});

describe('a server that has only chat', () => {
  const tiny = useTinyServers();
  const chatOnly = () =>
    tiny((req, res) => {
      if (req.url === '/v1/chat/completions')
        return json(res, 200, {
          id: 'c',
          object: 'chat.completion',
          created: 0,
          model: 'm',
          choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        });
      // FastAPI's answer for a route it does not have (vLLM and many OpenAI-compatible servers).
      json(res, 404, { detail: 'Not Found' });
    });

  it.each([
    ['complete', ['complete', '-m', 'm', 'Hi'], 'POST /v1/completions'],
    ['complete --stream', ['complete', '--stream', '-m', 'm', 'Hi'], 'POST /v1/completions'],
    ['embed', ['embed', '-m', 'm', 'Hi'], 'POST /v1/embeddings'],
  ])('%s: the 404 names the missing route and hints at chat (exit 4)', async (_name, args, route) => {
    const server = await chatOnly();
    const r = await run(['--provider', 'openai', '--url', `${server.url}/v1`, '--retries', '0', ...args]);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `error: openai returned HTTP 404: Not Found (the server has no ${route})\nhint: the server may offer only chat: try "textgen chat", or check the profile's url and provider\n`,
    );
    expect(r.exitCode).toBe(4);
    const chat = await run(['--provider', 'openai', '--url', `${server.url}/v1`, 'chat', '-m', 'm', 'Hi']);
    expect(chat.exitCode).toBe(0);
  });
});

describe('an answer with more header bytes than can be read', () => {
  it('is reported as what it is (exit 4), not as "cannot connect", and not retried', async () => {
    let connections = 0;
    const sockets = new Set<import('node:net').Socket>();
    const server = createNetServer((socket) => {
      connections += 1;
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.once('data', () => {
        socket.write(
          `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nx-padding: ${'a'.repeat(20 * 1024)}\r\ncontent-length: 2\r\n\r\n{}`,
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as import('node:net').AddressInfo).port}`;
    try {
      const r = await run(['--provider', 'openai', '--url', `${url}/v1`, 'complete', '-m', 'm', 'Hi']);
      expectOneError(
        r,
        new RegExp(
          `^error: unexpected answer: openai at ${url.replace(/\./g, '\\.')} answered with headers too large to read \\(more than 16 KiB\\)\\n`,
        ),
      );
      expect(r.stderr).not.toMatch(/cannot connect/);
      expect(r.exitCode).toBe(4);
      expect(connections).toBe(1);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
