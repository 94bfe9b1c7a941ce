/**
 * Scripted chat servers for what the embedded server does not act out (tool calls as each service words them,
 * streamed tool-call deltas split across events, answers that break a schema): each request is recorded with its
 * body, and answered by the next reply of the script. Listen on 127.0.0.1 port 0; closed after each test.
 */
import { createServer, type Server } from 'node:http';
import { afterEach, expect } from 'vitest';
import {
  alephAlphaChatRequestSchema,
  azureChatRequestSchema,
  openAiChatRequestSchema,
  watsonxChatRequestSchema,
  watsonxDeploymentChatRequestSchema,
} from '../contract/chat-schemas.js';

export interface FakeRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  json: unknown;
}

/** A JSON answer, or an event stream: each event's `data` (objects are JSON-encoded), written one by one. */
export type FakeReply = { status?: number; json: unknown } | { sse: Array<unknown>; done?: boolean; event?: string };

export interface FakeChatServer {
  url: string;
  requests: FakeRequest[];
}

export function useChatFakes(): (
  script: FakeReply[] | ((req: FakeRequest, n: number) => FakeReply),
) => Promise<FakeChatServer> {
  const open: Server[] = [];
  afterEach(async () => {
    await Promise.all(
      open.splice(0).map(
        (s) =>
          new Promise<void>((done) => {
            s.closeAllConnections();
            s.close(() => done());
          }),
      ),
    );
  });
  return async (script) => {
    const requests: FakeRequest[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://x');
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = text === '' ? undefined : JSON.parse(text);
        } catch {
          json = text;
        }
        const recorded: FakeRequest = {
          method: req.method ?? '',
          path: url.pathname,
          query: Object.fromEntries(url.searchParams),
          headers: req.headers,
          json,
        };
        requests.push(recorded);
        const n = requests.length - 1;
        const reply = typeof script === 'function' ? script(recorded, n) : script[Math.min(n, script.length - 1)];
        if (reply === undefined) {
          res.writeHead(500).end();
          return;
        }
        if ('json' in reply) {
          const body = JSON.stringify(reply.json);
          res.writeHead(reply.status ?? 200, {
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(body)),
          });
          res.end(body);
          return;
        }
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const [i, data] of reply.sse.entries()) {
          const line = typeof data === 'string' ? data : JSON.stringify(data);
          res.write(`${reply.event ? `id: ${i + 1}\nevent: ${reply.event}\n` : ''}data: ${line}\n\n`);
        }
        if (reply.done !== false) res.write('data: [DONE]\n\n');
        res.end();
      });
    });
    open.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    return { url: `http://127.0.0.1:${address.port}`, requests };
  };
}

export const KINDS = ['watsonx', 'azure-openai', 'openai', 'aleph-alpha'] as const;
export type Kind = (typeof KINDS)[number];

// ---- answers as each dialect words them ----

export interface Call {
  id: string;
  name: string;
  arguments: string;
}

export const wireCall = (c: Call) => ({
  id: c.id,
  type: 'function',
  function: { name: c.name, arguments: c.arguments },
});

/** A whole answer: watsonx's `TextChatResponse`, or OpenAI's `ChatCompletion` (Azure and Aleph Alpha share it). */
export function answer(kind: Kind, content: string | null, calls: Call[] = []): FakeReply {
  const message = { role: 'assistant', content, ...(calls.length > 0 ? { tool_calls: calls.map(wireCall) } : {}) };
  const choice = { index: 0, message, finish_reason: calls.length > 0 ? 'tool_calls' : 'stop' };
  const usage = { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 };
  if (kind === 'watsonx')
    return {
      json: {
        id: 'chat-1',
        model_id: 'm',
        created: 1_700_000_000,
        created_at: '2025-01-01T00:00:00.000Z',
        choices: [{ ...choice, message: { ...message, content: content ?? '' } }],
        usage,
      },
    };
  return {
    json: {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'm',
      choices: [{ ...choice, logprobs: null }],
      usage,
    },
  };
}

/** The same calls streamed: id and name first, then the arguments in pieces, one event each, then the finish. */
export function streamed(kind: Kind, calls: Call[], pieces = 3): FakeReply {
  const envelope =
    kind === 'watsonx'
      ? { id: 'chat-1', model_id: 'm', created: 1_700_000_000 }
      : { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'm' };
  const events: unknown[] = [];
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    events.push({ ...envelope, choices: [{ index: 0, delta, finish_reason: finish }] });
  chunk({ role: 'assistant', content: '' });
  calls.forEach((c, index) => {
    chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] });
    const size = Math.ceil(c.arguments.length / pieces);
    for (let at = 0; at < c.arguments.length; at += size)
      chunk({ tool_calls: [{ index, function: { arguments: c.arguments.slice(at, at + size) } }] });
  });
  chunk({}, 'tool_calls');
  events.push({ ...envelope, choices: [], usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 } });
  return kind === 'watsonx' ? { sse: events, done: false, event: 'message' } : { sse: events };
}

// ---- the contracts ----

const CHAT_PATH: Record<Kind, RegExp> = {
  watsonx: /^\/ml\/v1\/(text|deployments\/[^/]+\/text)\/chat(_stream)?$/,
  'azure-openai': /^\/openai\/deployments\/m\/chat\/completions$/,
  openai: /^\/v1\/chat\/completions$/,
  'aleph-alpha': /^\/chat\/completions$/,
};

/** Every request against its dialect's contract (test/contract/chat-schemas.ts). */
export function expectValidChat(kind: Kind, requests: FakeRequest[]): void {
  for (const r of requests) {
    expect(r.path, `${kind} path`).toMatch(CHAT_PATH[kind]);
    const schema =
      kind === 'watsonx'
        ? r.path.startsWith('/ml/v1/deployments/')
          ? watsonxDeploymentChatRequestSchema
          : watsonxChatRequestSchema
        : kind === 'azure-openai'
          ? azureChatRequestSchema
          : kind === 'openai'
            ? openAiChatRequestSchema
            : alephAlphaChatRequestSchema;
    const parsed = schema.safeParse(r.json);
    expect(parsed.success, `${kind} ${r.path}: ${parsed.success ? '' : JSON.stringify(parsed.error.issues)}`).toBe(
      true,
    );
  }
}
