/**
 * A scripted batch service for the CLI tests of `batch submit|status|wait|results|cancel|list`: OpenAI's files and
 * batches routes (also under Azure's `/openai/…` and watsonx's `/ml/v1/…`), in memory, on 127.0.0.1 port 0. No
 * timers: each retrieve of a batch moves it one step (validating → in_progress → completed, or the fault's end),
 * so tests wait for states, not for time. Output lines come back in reverse order, as a real service may shuffle
 * them. Faults per test: lines that fail (error file), a batch that expires or is cancelled halfway.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeBatch {
  id: string;
  object: 'batch';
  endpoint: string;
  input_file_id: string;
  completion_window: string;
  status: string;
  output_file_id: string | null;
  error_file_id: string | null;
  created_at: number;
  request_counts: { total: number; completed: number; failed: number };
  metadata: Record<string, string> | null;
  errors?: unknown;
}

export interface FakeOptions {
  maxLines?: number;
  /** custom_ids whose request fails with a 400 in the error file. */
  failIds?: Set<string>;
  /** What happens when a batch is processed: every line, or half of them and then expired. */
  end?: 'complete' | 'expire';
}

export interface FakeBatchService {
  url: string;
  uploads: number;
  creates: number;
  batches: Map<string, FakeBatch>;
  files: Map<string, string>;
  /** Requests seen, "METHOD path". */
  seen: string[];
  headers: Array<Record<string, string | string[] | undefined>>;
  options: FakeOptions;
  close(): Promise<void>;
}

function body(req: IncomingMessage): Promise<Buffer> {
  return new Promise((done, fail) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => done(Buffer.concat(chunks)));
    req.on('error', fail);
  });
}

function send(res: ServerResponse, status: number, value: unknown, type = 'application/json'): void {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  res.writeHead(status, { 'content-type': type });
  res.end(text);
}

/** The file part of a multipart body. */
function filePart(raw: Buffer, contentType: string): string | undefined {
  const m = /boundary=([^;]+)/.exec(contentType);
  if (!m) return undefined;
  const text = raw.toString('utf8');
  for (const part of text.split(`--${m[1]}`)) {
    if (!/name="file"/.test(part)) continue;
    const at = part.indexOf('\r\n\r\n');
    return part.slice(at + 4).replace(/\r\n$/, '');
  }
  return undefined;
}

function answerFor(url: string, body: Record<string, unknown>, customId: string): unknown {
  if (url.endsWith('/chat/completions') || url.endsWith('/text/chat')) {
    const messages = body.messages as Array<{ content: string }>;
    return {
      id: `chatcmpl-${customId}`,
      object: 'chat.completion',
      created: 1,
      model: body.model ?? body.model_id,
      choices: [
        { index: 0, message: { role: 'assistant', content: `re: ${messages.at(-1)?.content}` }, finish_reason: 'stop' },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    };
  }
  if (url.endsWith('/embeddings'))
    return {
      object: 'list',
      data: [{ index: 0, object: 'embedding', embedding: [0.1, 0.2] }],
      model: body.model,
      usage: { prompt_tokens: 1, total_tokens: 1 },
    };
  return {
    id: `cmpl-${customId}`,
    object: 'text_completion',
    created: 1,
    model: body.model,
    choices: [{ index: 0, text: `re: ${body.prompt}`, finish_reason: 'stop', logprobs: null }],
    usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
  };
}

export async function startFakeBatchService(options: FakeOptions = {}): Promise<FakeBatchService> {
  let n = 0;
  const next = (prefix: string) => `${prefix}-${++n}`;
  const state: Omit<FakeBatchService, 'url' | 'close'> = {
    uploads: 0,
    creates: 0,
    batches: new Map(),
    files: new Map(),
    seen: [],
    headers: [],
    options,
  };

  /** Runs the lines (or half of them, for an expiry or a cancel) and writes the output and error files. */
  const process = (b: FakeBatch, portion: number) => {
    const lines = (state.files.get(b.input_file_id) ?? '').split('\n').filter((l) => l.trim() !== '');
    const take = Math.floor(lines.length * portion);
    const out: string[] = [];
    const errors: string[] = [];
    for (const text of lines.slice(0, take)) {
      const line = JSON.parse(text) as { custom_id: string; url: string; body: Record<string, unknown> };
      if (state.options.failIds?.has(line.custom_id)) {
        errors.push(
          JSON.stringify({
            id: next('resp'),
            custom_id: line.custom_id,
            response: {
              status_code: 400,
              request_id: 'r',
              body: {
                error: { message: `bad request ${line.custom_id}`, type: 'invalid_request_error', code: 'bad_line' },
              },
            },
            error: null,
          }),
        );
        b.request_counts.failed++;
      } else {
        out.push(
          JSON.stringify({
            id: next('resp'),
            custom_id: line.custom_id,
            response: { status_code: 200, request_id: 'r', body: answerFor(line.url, line.body, line.custom_id) },
            error: null,
          }),
        );
        b.request_counts.completed++;
      }
    }
    // A real service does not keep the input order.
    out.reverse();
    if (out.length > 0) {
      const id = next('file-out');
      state.files.set(id, `${out.join('\n')}\n`);
      b.output_file_id = id;
    }
    if (errors.length > 0) {
      const id = next('file-err');
      state.files.set(id, `${errors.join('\n')}\n`);
      b.error_file_id = id;
    }
  };

  const step = (b: FakeBatch) => {
    if (b.status === 'validating') b.status = 'in_progress';
    else if (b.status === 'in_progress') {
      if (state.options.end === 'expire') {
        process(b, 0.5);
        b.status = 'expired';
      } else {
        process(b, 1);
        b.status = 'completed';
      }
    } else if (b.status === 'cancelling') {
      process(b, 0.5);
      b.status = 'cancelled';
    }
  };

  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    // One set of routes whoever's prefix: /v1, Azure's /openai, watsonx's /ml/v1.
    const path = url.pathname.replace(/^\/(v1|openai(\/v1)?|ml\/v1)/, '');
    state.seen.push(`${req.method} ${url.pathname}${url.search}`);
    state.headers.push(req.headers);
    const raw = await body(req);
    if (req.method === 'POST' && path === '/files') {
      const content = filePart(raw, req.headers['content-type'] ?? '');
      if (content === undefined) return send(res, 400, { error: { message: 'no file part' } });
      state.uploads++;
      const id = next('file');
      state.files.set(id, content);
      return send(res, 200, {
        id,
        object: 'file',
        bytes: Buffer.byteLength(content),
        purpose: 'batch',
        filename: 'x.jsonl',
        created_at: 1,
      });
    }
    let m = /^\/files\/([^/]+)\/content$/.exec(path);
    if (req.method === 'GET' && m) {
      const content = state.files.get(m[1] as string);
      return content === undefined
        ? send(res, 404, { error: { message: 'no such file' } })
        : send(res, 200, content, 'application/octet-stream');
    }
    if (req.method === 'POST' && path === '/batches') {
      const b = JSON.parse(raw.toString('utf8')) as {
        input_file_id: string;
        endpoint: string;
        completion_window: string;
        metadata?: Record<string, string>;
      };
      const content = state.files.get(b.input_file_id);
      if (content === undefined) return send(res, 400, { error: { message: 'no such input file' } });
      const lines = content.split('\n').filter((l) => l.trim() !== '').length;
      if (state.options.maxLines !== undefined && lines > state.options.maxLines)
        return send(res, 400, { error: { message: `too many lines: ${lines}`, code: 'too_many_lines' } });
      state.creates++;
      const batch: FakeBatch = {
        id: next('batch'),
        object: 'batch',
        endpoint: b.endpoint,
        input_file_id: b.input_file_id,
        completion_window: b.completion_window,
        status: 'validating',
        output_file_id: null,
        error_file_id: null,
        created_at: 1_700_000_000 + n,
        request_counts: { total: lines, completed: 0, failed: 0 },
        metadata: b.metadata ?? null,
      };
      state.batches.set(batch.id, batch);
      return send(res, 200, batch);
    }
    m = /^\/batches\/([^/]+)(\/cancel)?$/.exec(path);
    if (m) {
      const b = state.batches.get(m[1] as string);
      if (b === undefined) return send(res, 404, { error: { message: 'no such batch', code: 'not_found' } });
      if (req.method === 'POST' && m[2]) {
        if (b.status === 'validating' || b.status === 'in_progress') b.status = 'cancelling';
        return send(res, 200, b);
      }
      if (req.method === 'GET') {
        step(b);
        return send(res, 200, b);
      }
    }
    if (req.method === 'GET' && path === '/batches') {
      const all = [...state.batches.values()].reverse();
      const after = url.searchParams.get('after');
      const from = after === null ? 0 : all.findIndex((b) => b.id === after) + 1;
      const limit = Number(url.searchParams.get('limit') ?? 20);
      const data = all.slice(from, from + limit);
      return send(res, 200, {
        object: 'list',
        data,
        first_id: data[0]?.id ?? null,
        last_id: data.at(-1)?.id ?? null,
        has_more: from + limit < all.length,
      });
    }
    send(res, 404, { error: { message: `no route ${req.method} ${url.pathname}` } });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((done) => server.close(() => done())),
  }) as FakeBatchService;
}
