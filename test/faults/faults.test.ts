/**
 * Every fault switch of `serve`, queued through its control endpoint, against the built CLI (`npm run build`
 * first), for each protocol it is shaped for. Each case checks the exit code docs/design.md §5 documents, that what the
 * server delivered before the failure is on stdout (bytes lost, measured), that attempts are retried only where §7
 * allows and never after streamed text, that Retry-After and retry-after-ms are waited out, that nothing hangs and
 * that stderr is one clear line. The suite ends with one line of figures.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runBin } from '../helpers/run-cli.js';
import { bytesLost, deliverable, RETRYABLE, startRecordingServer, TEXT, type Wire } from './harness.js';

type Provider = 'watsonx' | 'azure-openai' | 'aleph-alpha' | 'open-inference' | 'openai';

/** `deployment`: what --id-or-name names (watsonx knows its deployments by id or serving name only). */
const PROFILE: Record<Provider, { profile: string; path: string; deployment: string }> = {
  watsonx: { profile: 'local', path: '', deployment: 'demo' },
  'azure-openai': { profile: 'local-azure', path: '', deployment: 'luminous-base' },
  openai: { profile: 'local-openai', path: '/v1', deployment: 'luminous-base' },
  'aleph-alpha': { profile: 'local-aa', path: '', deployment: 'luminous-base' },
  'open-inference': { profile: 'local-oip', path: '', deployment: 'luminous-base' },
};
const FOUR: Provider[] = ['watsonx', 'azure-openai', 'aleph-alpha', 'open-inference'];

interface Case {
  name: string;
  provider: Provider;
  /** The spec POSTed to /__textgen/faults; a function when it depends on the time. */
  spec: string | (() => string);
  command?: 'generate' | 'embed';
  stream?: boolean;
  /** CLI flags beyond the command (each case bounds --timeout and --retries itself). */
  flags: string[];
  exit: number;
  attempts: number;
  /** The wait each retry was asked for, in ms; a function of the failed attempt for an HTTP date. */
  retryAfter?: number | ((failed: Wire) => number);
  /** The server held its answer back at least this long. */
  latency?: number;
  stderr?: RegExp;
}

const QUICK = ['--timeout', '5000'];
const STALL = ['--timeout', '1000'];

/** The error line each protocol's busy answer draws. */
const BUSY_ERROR: Record<Provider, RegExp> = {
  watsonx: /^error: watsonx returned HTTP 503 service_unavailable: The model is busy/,
  'aleph-alpha': /^error: aleph-alpha returned HTTP 503 QUEUE_FULL: /,
  'azure-openai': /^error: azure-openai returned HTTP 429 429: Requests to the Completions_Create Operation/,
  openai: /^error: openai returned HTTP 503 server_error: The engine is currently overloaded/,
  'open-inference': /^error: open-inference returned HTTP 429 overloaded: Model is overloaded/,
};

const perProtocol = (p: Provider): Case[] => [
  {
    name: '429 with Retry-After: 1, then the answer',
    provider: p,
    spec: 'status:code=429,retry-after=1',
    flags: QUICK,
    exit: 0,
    attempts: 2,
    retryAfter: 1000,
  },
  {
    name: '503 with retry-after-ms on every attempt → exit 4 after 1 + --retries attempts',
    provider: p,
    spec: 'status:code=503,retry-after-ms=200,times=*',
    stream: true,
    flags: [...QUICK, '--retries', '2'],
    exit: 4,
    attempts: 3,
    retryAfter: 200,
    stderr: /HTTP 503/,
  },
  {
    name: 'busy once (retry-after-ms), then the stream',
    provider: p,
    spec: 'busy:retry-after-ms=150',
    stream: true,
    flags: QUICK,
    exit: 0,
    attempts: 2,
    retryAfter: 150,
  },
  {
    name: "busy every time → exit 4 in the protocol's words",
    provider: p,
    spec: 'busy:times=*',
    flags: [...QUICK, '--retries', '1'],
    exit: 4,
    attempts: 2,
    stderr: BUSY_ERROR[p],
  },
  {
    name: 'error event after 3 events → partial text, exit 6',
    provider: p,
    spec: 'stream-error:after=3',
    stream: true,
    flags: QUICK,
    exit: 6,
    attempts: 1,
    stderr: /stream broke off/,
  },
  {
    name: 'broken JSON event after 3 events → partial text, exit 6',
    provider: p,
    spec: 'malformed:after=3',
    stream: true,
    flags: QUICK,
    exit: 6,
    attempts: 1,
    stderr: /stream broke off/,
  },
  {
    name: 'connection dropped after 3 events → partial text, exit 6',
    provider: p,
    spec: 'drop:after=3',
    stream: true,
    flags: QUICK,
    exit: 6,
    attempts: 1,
    stderr: /stream broke off/,
  },
  {
    name: 'an HTML page instead of the event stream → exit 4',
    provider: p,
    spec: 'content-type:type=text/html',
    stream: true,
    flags: QUICK,
    exit: 4,
    attempts: 1,
    stderr: /HTTP 200: unexpected answer: not JSON — got: <!DOCTYPE html>/,
  },
];

/** Faults of the connection rather than the protocol: each against two protocols whose streams differ in form. */
const byConnection: Case[] = [
  ...(['watsonx', 'open-inference'] as const).map(
    (p): Case => ({
      name: 'binary junk line after 3 events → partial text, exit 6',
      provider: p,
      spec: 'malformed:after=3,as=binary',
      stream: true,
      flags: QUICK,
      exit: 6,
      attempts: 1,
      stderr: /stream broke off/,
    }),
  ),
  ...(['watsonx', 'aleph-alpha'] as const).map(
    (p): Case => ({
      name: "a 32 MiB line after 3 events → the parser's cap ends it: partial text, exit 6",
      provider: p,
      spec: 'malformed:after=3,as=long',
      stream: true,
      flags: QUICK,
      exit: 6,
      attempts: 1,
      stderr: /stream broke off: the service sent a line longer than 16 Mi characters without a line break/,
    }),
  ),
  {
    name: 'a 4 MiB line that is not JSON → partial text, exit 6',
    provider: 'azure-openai',
    spec: 'malformed:after=3,as=long,bytes=4194304',
    stream: true,
    flags: QUICK,
    exit: 6,
    attempts: 1,
    stderr: /malformed event from the service/,
  },
  ...(['watsonx', 'azure-openai', 'openai', 'aleph-alpha'] as const).map(
    (p): Case => ({
      name: 'a stream that ends cleanly after 3 events, before the stop reason → partial text, exit 6',
      provider: p,
      spec: 'truncate:after=3',
      stream: true,
      flags: QUICK,
      exit: 6,
      attempts: 1,
      stderr: /stream broke off: the stream ended before the service said the generation was finished/,
    }),
  ),
  {
    name: 'an empty event stream → exit 6, nothing on stdout',
    provider: 'watsonx',
    spec: 'content-type:type=text/event-stream',
    stream: true,
    flags: QUICK,
    exit: 6,
    attempts: 1,
    stderr: /stream ended before the service said/,
  },
  {
    name: 'a stream that ends cleanly after 3 events is the answer: Open Inference has no end marker',
    provider: 'open-inference',
    spec: 'truncate:after=3',
    stream: true,
    flags: QUICK,
    exit: 0,
    attempts: 1,
  },
  ...(['watsonx', 'open-inference'] as const).map(
    (p): Case => ({
      name: 'stream silent after 3 events → aborted after --timeout, exit 6',
      provider: p,
      spec: 'stall:after=3',
      stream: true,
      flags: STALL,
      exit: 6,
      attempts: 1,
      stderr: /stream broke off: .*sent nothing for 1 s/,
    }),
  ),
  ...(['watsonx', 'aleph-alpha'] as const).map(
    (p): Case => ({
      name: 'a non-stream answer cut halfway, once → retried, then the answer',
      provider: p,
      spec: 'drop:after=3',
      flags: QUICK,
      exit: 0,
      attempts: 2,
    }),
  ),
  ...(['watsonx', 'aleph-alpha'] as const).map(
    (p): Case => ({
      name: 'a non-stream answer cut halfway every time → exit 5 after the retries',
      provider: p,
      spec: 'drop:after=3,times=*',
      flags: [...QUICK, '--retries', '1'],
      exit: 5,
      attempts: 2,
      stderr: /broke off in the middle of its answer/,
    }),
  ),
  {
    name: 'an HTML page instead of the JSON answer → exit 4',
    provider: 'azure-openai',
    spec: 'content-type:type=text/html',
    flags: QUICK,
    exit: 4,
    attempts: 1,
    stderr: /HTTP 200: unexpected answer: not JSON — got: /,
  },
];

/** An HTTP date a whole 3–4 s ahead (dates have whole seconds; a loaded machine may take 2 s to start the CLI). */
const inThreeSeconds = () => new Date(Math.ceil((Date.now() + 3000) / 1000) * 1000).toUTCString();
const secondsOf = (spec: string) => Date.parse(spec.slice(spec.indexOf('retry-after=') + 'retry-after='.length));
let dateSpec = '';

const once: Case[] = [
  {
    name: '500 with --retries 0 → exit 4, one attempt',
    provider: 'watsonx',
    spec: 'status:code=500',
    flags: [...QUICK, '--retries', '0'],
    exit: 4,
    attempts: 1,
    stderr: /HTTP 500 internal_server_error/,
  },
  {
    name: '502 once → backoff, then the answer',
    provider: 'watsonx',
    spec: 'status:code=502',
    flags: QUICK,
    exit: 0,
    attempts: 2,
  },
  {
    name: '504 every time → exit 4 after the retries',
    provider: 'watsonx',
    spec: 'status:code=504,retry-after-ms=100,times=*',
    flags: [...QUICK, '--retries', '1'],
    exit: 4,
    attempts: 2,
    retryAfter: 100,
    stderr: /HTTP 504 gateway_timeout/,
  },
  {
    name: '429 with Retry-After as an HTTP date',
    provider: 'watsonx',
    spec: () => (dateSpec = `status:code=429,retry-after=${inThreeSeconds()}`),
    flags: QUICK,
    exit: 0,
    attempts: 2,
    // A date already past when the 429 went out asks for no wait at all.
    retryAfter: (failed) => Math.max(0, secondsOf(dateSpec) - (failed.endedAt ?? failed.startedAt)),
  },
  {
    name: "429 before a stream's first byte is retried",
    provider: 'watsonx',
    spec: 'status:code=429,retry-after=1',
    stream: true,
    flags: QUICK,
    exit: 0,
    attempts: 2,
    retryAfter: 1000,
  },
  {
    name: 'connection dropped before the headers, once → retried',
    provider: 'watsonx',
    spec: 'drop',
    flags: QUICK,
    exit: 0,
    attempts: 2,
  },
  {
    name: 'connection dropped before the headers every time → exit 5',
    provider: 'watsonx',
    spec: 'drop:times=*',
    stream: true,
    flags: [...QUICK, '--retries', '1'],
    exit: 5,
    attempts: 2,
    stderr: /before the answer/,
  },
  {
    name: 'a non-stream answer silent halfway → exit 5 after --timeout',
    provider: 'watsonx',
    spec: 'stall:after=1',
    flags: STALL,
    exit: 5,
    attempts: 1,
    stderr: /sent nothing for 1 s in the middle of its answer/,
  },
  {
    name: 'no headers within --timeout → exit 5',
    provider: 'watsonx',
    spec: 'hang',
    flags: [...STALL, '--retries', '0'],
    exit: 5,
    attempts: 1,
    stderr: /no response from watsonx .* within 1 s \(--timeout\)/,
  },
  {
    name: 'no headers within --timeout on a stream → exit 5, not retried',
    provider: 'aleph-alpha',
    spec: 'hang',
    stream: true,
    flags: STALL,
    exit: 5,
    attempts: 1,
    stderr: /within 1 s/,
  },
  {
    name: 'latency 400–600 ms, then the stream',
    provider: 'watsonx',
    spec: 'latency:ms=400-600',
    stream: true,
    flags: QUICK,
    exit: 0,
    attempts: 1,
    latency: 400,
  },
  {
    name: 'latency 300 ms, then the answer',
    provider: 'open-inference',
    spec: 'latency:ms=300',
    flags: QUICK,
    exit: 0,
    attempts: 1,
    latency: 300,
  },
  {
    name: 'an error event before any text → exit 6, nothing on stdout',
    provider: 'azure-openai',
    spec: 'stream-error:after=0',
    stream: true,
    flags: QUICK,
    exit: 6,
    attempts: 1,
    stderr: /stream broke off/,
  },
  {
    name: 'JSON of the wrong shape → exit 4',
    provider: 'watsonx',
    spec: 'content-type:type=application/json',
    flags: QUICK,
    exit: 4,
    attempts: 1,
    stderr: /unexpected answer/,
  },
  {
    name: 'binary bytes instead of the stream → exit 4',
    provider: 'aleph-alpha',
    spec: 'content-type:type=application/octet-stream',
    stream: true,
    flags: QUICK,
    exit: 4,
    attempts: 1,
    stderr: /unexpected answer: not JSON — got: /,
  },
  {
    name: 'OpenAI: busy every time → its 503, exit 4',
    provider: 'openai',
    spec: 'busy:times=*',
    flags: [...QUICK, '--retries', '0'],
    exit: 4,
    attempts: 1,
    stderr: BUSY_ERROR.openai,
  },
  {
    name: 'embed: 503 with retry-after-ms once → the vectors',
    provider: 'watsonx',
    command: 'embed',
    spec: 'status:code=503,retry-after-ms=100',
    flags: QUICK,
    exit: 0,
    attempts: 2,
    retryAfter: 100,
  },
  {
    name: 'embed: busy once → the vectors',
    provider: 'aleph-alpha',
    command: 'embed',
    spec: 'busy',
    flags: QUICK,
    exit: 0,
    attempts: 2,
  },
  {
    name: 'embed: an answer cut halfway, once → retried, then the vectors',
    provider: 'azure-openai',
    command: 'embed',
    spec: 'drop:after=1',
    flags: QUICK,
    exit: 0,
    attempts: 2,
  },
  {
    name: 'embed: an answer cut halfway every time → exit 5',
    provider: 'azure-openai',
    command: 'embed',
    spec: 'drop:after=1,times=*',
    flags: [...QUICK, '--retries', '0'],
    exit: 5,
    attempts: 1,
    stderr: /broke off in the middle of its answer/,
  },
];

const CASES: Case[] = [...FOUR.flatMap(perProtocol), ...byConnection, ...once];

const generate = (deployment: string) => [
  'deployment',
  'text-generate',
  '--id-or-name',
  deployment,
  '--input',
  'Tell me about rivers',
  '--parameters-max-new-tokens',
  '24',
  '--parameters-decoding-method',
  'greedy',
];
const EMBED: Partial<Record<Provider, string[]>> = {
  watsonx: ['embed', '-m', 'ibm/slate-30m-english-rtrvr', 'Where do rivers start?'],
  'azure-openai': ['embed', '-m', 'text-embedding-ada-002', 'Where do rivers start?'],
  'aleph-alpha': ['embed', '--representation', 'query', '--compress-to-size', '128', 'Where do rivers start?'],
};

function argsOf(c: Case, url: string): string[] {
  const p = PROFILE[c.provider];
  const command =
    c.command === 'embed' ? EMBED[c.provider]! : [...generate(p.deployment), ...(c.stream ? ['--stream'] : [])];
  return ['--profile', p.profile, '--url', url + p.path, ...command, ...c.flags];
}

/** stdout of the same command with no fault: what embed must print when it survives (its output is no text). */
const baselines = new Map<string, Promise<string>>();
function baseline(c: Case): Promise<string> {
  const key = `${c.provider} ${c.command}`;
  let found = baselines.get(key);
  if (!found) {
    found = (async () => {
      const { server } = await startRecordingServer();
      try {
        return (await runBin(argsOf({ ...c, flags: QUICK }, server.url), { timeout: 20_000 })).stdout;
      } finally {
        await server.close();
      }
    })();
    baselines.set(key, found);
  }
  return found;
}

interface Outcome {
  survived: boolean;
  lost: number;
  retryErrors: number[];
}
const outcomes: Outcome[] = [];

/**
 * At most this many cases at once: each is a CLI process, and on two cores more would only stretch every timing the
 * cases measure. (vitest's own limit is a config setting, not a per-file one.)
 */
const AT_ONCE = 4;
let running = 0;
const waiting: Array<() => void> = [];
async function slot(): Promise<() => void> {
  if (running >= AT_ONCE) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  return () => {
    running--;
    waiting.shift()?.();
  };
}

/** The engine's tokenizer loads once per process, synchronously: load it before any case measures time. */
beforeAll(async () => {
  const { server } = await startRecordingServer();
  try {
    await fetch(`${server.url}/v2/models/demo/generate`, {
      method: 'POST',
      body: JSON.stringify({ text_input: 'warm up', parameters: { max_tokens: 2 } }),
    });
  } finally {
    await server.close();
  }
});

async function runCase(c: Case): Promise<string[]> {
  const release = await slot();
  try {
    return await runOne(c);
  } finally {
    release();
  }
}

async function runOne(c: Case): Promise<string[]> {
  const { server, wires } = await startRecordingServer();
  const problems: string[] = [];
  let lost = 0;
  const retryErrors: number[] = [];
  try {
    const spec = typeof c.spec === 'function' ? c.spec() : c.spec;
    const queued = await fetch(`${server.url}/__textgen/faults`, { method: 'POST', body: spec });
    if (queued.status !== 201) problems.push(`the spec ${spec} was refused: ${await queued.text()}`);
    const r = await runBin(argsOf(c, server.url), { timeout: 20_000 });

    if (r.exitCode !== c.exit) problems.push(`exit ${r.exitCode}, expected ${c.exit}; stderr: ${r.stderr}`);
    if (wires.length !== c.attempts) problems.push(`${wires.length} attempts, expected ${c.attempts}`);

    // Each retry followed an attempt that failed in a way §7 allows retrying, and that delivered no text.
    for (const failed of wires.slice(0, -1)) {
      // A JSON answer whose connection broke before its end showed nothing yet: §7's "connection reset" applies.
      const cutWholeAnswer = failed.endedAt === undefined && !(failed.contentType ?? '').includes('text/event-stream');
      if (failed.status !== undefined && !RETRYABLE.has(failed.status) && !cutWholeAnswer)
        problems.push(`retried after HTTP ${failed.status}`);
      if (c.command !== 'embed' && deliverable(failed, TEXT[c.provider]!) !== '')
        problems.push('retried after text had been delivered');
    }

    // What the server delivered before the failure (or the whole answer) is on stdout; nothing else is.
    const last = wires.at(-1);
    const expected =
      c.command === 'embed'
        ? c.exit === 0
          ? await baseline(c)
          : ''
        : last
          ? deliverable(last, TEXT[c.provider]!)
          : '';
    lost = bytesLost(expected, r.stdout);
    if (lost > 0)
      problems.push(
        `${lost} bytes lost: stdout ${JSON.stringify(r.stdout.slice(0, 120))}, delivered ${JSON.stringify(expected.slice(0, 120))}`,
      );
    const extra = r.stdout.slice(expected.length);
    if (extra !== '' && extra !== '\n')
      problems.push(`stdout has more than was delivered: ${JSON.stringify(extra.slice(0, 120))}`);
    if (c.exit === 0 && c.command !== 'embed' && r.stdout !== `${expected}\n`)
      problems.push('a success must print the whole text and a newline');
    if (c.exit !== 0 && c.exit !== 6 && expected !== '')
      problems.push('the case expects output but its exit code says none was written');

    // Retry-After / retry-after-ms waited out: at least 90 % of the ask, less than the ask + 3 s.
    if (c.retryAfter !== undefined) {
      for (let i = 1; i < wires.length; i++) {
        const failed = wires[i - 1]!;
        const asked = typeof c.retryAfter === 'function' ? c.retryAfter(failed) : c.retryAfter;
        const waited = wires[i]!.startedAt - (failed.endedAt ?? failed.startedAt);
        retryErrors.push(Math.abs(waited - asked));
        if (waited < asked * 0.9 || waited >= asked + 3000)
          problems.push(`waited ${waited} ms where ${Math.round(asked)} ms were asked`);
      }
    }
    if (c.latency !== undefined) {
      const held = (wires[0]?.firstByteAt ?? 0) - (wires[0]?.startedAt ?? 0);
      if (held < c.latency) problems.push(`the server held its answer ${held} ms, less than the ${c.latency} ms asked`);
    }

    // stderr: nothing on success; otherwise one `error:` line, no stack trace.
    const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
    if (c.exit === 0 && r.stderr !== '') problems.push(`stderr on success: ${r.stderr}`);
    if (c.exit !== 0) {
      if (lines.length !== 1 || !lines[0]!.startsWith('error: '))
        problems.push(`stderr is not one error line: ${JSON.stringify(r.stderr)}`);
      if (/^\s+at /m.test(r.stderr)) problems.push('stderr has a stack trace');
      // Junk from the server (NULs, escape sequences) must reach the terminal escaped, not raw.
      if (/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(r.stderr))
        problems.push(`stderr has raw control characters: ${JSON.stringify(r.stderr)}`);
      if (c.stderr && !c.stderr.test(lines[0] ?? ''))
        problems.push(`stderr ${JSON.stringify(lines[0])} does not match ${c.stderr}`);
    }
  } catch (e) {
    problems.push((e as Error).message);
  } finally {
    await server.close();
  }
  outcomes.push({ survived: problems.length === 0, lost, retryErrors });
  return problems;
}

afterAll(() => {
  const survived = outcomes.filter((o) => o.survived).length;
  const lost = outcomes.reduce((sum, o) => sum + o.lost, 0);
  const errors = outcomes.flatMap((o) => o.retryErrors);
  const maxError = errors.length > 0 ? Math.round(Math.max(...errors)) : 0;
  console.log(
    `faults: ${outcomes.length} cases, ${survived} survived, ${lost} bytes lost, max retry-after error ${maxError} ms`,
  );
});

describe.concurrent('the built CLI survives every fault switch', () => {
  test.each(
    CASES.map(
      (c) => [`${c.provider}${c.command === 'embed' ? ' embed' : c.stream ? ' --stream' : ''}: ${c.name}`, c] as const,
    ),
  )('%s', { timeout: 90_000 }, async (_, c) => {
    expect(await runCase(c)).toEqual([]);
  });
});
