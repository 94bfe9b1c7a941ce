/**
 * The fault suite's instruments: an embedded server that records, per operation request, exactly what went on the
 * wire and when; the text a client could have shown from it; and the checks every case shares.
 */
import type { ServerResponse } from 'node:http';
import { SseParser } from '../../src/http/sse-parser.js';
import type { SseEvent } from '../../src/contract/http.js';
import { allProtocols } from '../../src/emulator/core/protocols.js';
import { startServer, type ProtocolModule, type RunningServer } from '../../src/emulator/core/index.js';

/** One operation request as the server answered it. */
export interface Wire {
  path: string;
  startedAt: number;
  /** When the first byte (headers included) went out; undefined when nothing did (dropped, hung). */
  firstByteAt?: number;
  /** When the answer was complete; undefined when it never was. */
  endedAt?: number;
  /** Undefined when the headers never went out. */
  status?: number;
  contentType?: string;
  body: Buffer[];
}

export interface RecordingServer {
  server: RunningServer;
  wires: Wire[];
}

/** Every route handler of every protocol, wrapped to tee its response into a Wire. */
function recording(modules: ProtocolModule[], wires: Wire[]): ProtocolModule[] {
  return modules.map((m) => ({
    ...m,
    routes: m.routes.map((route) => ({
      ...route,
      handler: (ctx) => {
        const wire: Wire = { path: ctx.request.path, startedAt: Date.now(), body: [] };
        wires.push(wire);
        tee(ctx.res, wire);
        return route.handler(ctx);
      },
    })),
  }));
}

type Writer = (chunk?: unknown, ...rest: unknown[]) => unknown;

function tee(res: ServerResponse, wire: Wire): void {
  const seen = (chunk: unknown): void => {
    wire.firstByteAt ??= Date.now();
    wire.status ??= res.statusCode;
    const type = res.getHeader('content-type');
    if (wire.contentType === undefined && type !== undefined) wire.contentType = String(type);
    if (typeof chunk === 'string' || chunk instanceof Uint8Array) wire.body.push(Buffer.from(chunk));
  };
  // ServerResponse.write/end are overloaded; the wrappers only look at the first argument and pass all through.
  const write = res.write.bind(res) as Writer;
  const end = res.end.bind(res) as Writer;
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    seen(chunk);
    return write(chunk, ...rest);
  }) as typeof res.write;
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    seen(typeof chunk === 'function' ? undefined : chunk);
    wire.endedAt = Date.now();
    return end(chunk, ...rest);
  }) as typeof res.end;
  // Headers given to writeHead are not all visible to getHeader afterwards: take them from the call.
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  res.writeHead = ((status: number, ...rest: unknown[]) => {
    wire.status ??= status;
    const headers = rest.find(
      (r): r is Record<string, unknown> => typeof r === 'object' && r !== null && !Array.isArray(r),
    );
    if (headers?.['content-type'] !== undefined) wire.contentType ??= String(headers['content-type']);
    return writeHead(status, ...rest);
  }) as typeof res.writeHead;
  // flushHeaders (event streams) sends the headers before any write.
  const flushHeaders = res.flushHeaders.bind(res);
  res.flushHeaders = () => {
    seen(undefined);
    flushHeaders();
  };
}

export async function startRecordingServer(): Promise<RecordingServer> {
  const wires: Wire[] = [];
  const server = await startServer({ protocols: recording(await allProtocols(), wires) });
  return { server, wires };
}

/** How to read generated text out of one protocol's answers and stream events. */
export interface ProviderText {
  answer(json: Record<string, any>): string; // eslint-disable-line @typescript-eslint/no-explicit-any -- wire JSON, read defensively below
  event(json: Record<string, any>): string; // eslint-disable-line @typescript-eslint/no-explicit-any -- same
}

/* The readers throw on a body of the wrong shape; `deliverable` turns that into "nothing deliverable". */
export const TEXT: Record<string, ProviderText> = {
  watsonx: { answer: (j) => j.results[0].generated_text, event: (j) => j.results?.[0]?.generated_text ?? '' },
  'azure-openai': { answer: (j) => j.choices[0].text, event: (j) => j.choices?.[0]?.text ?? '' },
  openai: { answer: (j) => j.choices[0].text, event: (j) => j.choices?.[0]?.text ?? '' },
  'aleph-alpha': {
    answer: (j) => j.completions[0].completion,
    event: (j) => (j.type === 'stream_chunk' ? j.completion : ''),
  },
  'open-inference': { answer: (j) => j.text_output, event: (j) => j.text_output ?? '' },
};

/**
 * The text a correct client could have shown from what the server sent: a whole 200 JSON answer's text, or the
 * text of the stream's complete events up to the first one that is an error, not JSON, or the end marker. A cut
 * or wrong-typed body delivers nothing.
 */
export function deliverable(wire: Wire, text: ProviderText): string {
  if (wire.status !== 200) return '';
  if (!wire.contentType?.includes('text/event-stream')) {
    if (!wire.contentType?.includes('application/json')) return '';
    try {
      const t = text.answer(JSON.parse(Buffer.concat(wire.body).toString('utf8')));
      return typeof t === 'string' ? t : '';
    } catch {
      return '';
    }
  }
  // Chunk by chunk, as the client reads, stopping where a line past the parser's cap makes it give up; and
  // without end(): an event whose blank line never came was not delivered.
  const parser = new SseParser();
  const events: SseEvent[] = [];
  try {
    for (const chunk of wire.body) events.push(...parser.push(chunk));
  } catch {
    // What came before the oversized line stands.
  }
  let out = '';
  for (const event of events) {
    if (event.event === 'error' || event.data.trim() === '[DONE]') break;
    let json: unknown;
    try {
      json = JSON.parse(event.data);
    } catch {
      break;
    }
    if (typeof json !== 'object' || json === null || 'error' in json || 'errors' in json) break;
    out += text.event(json as Record<string, unknown>);
  }
  return out;
}

/** Bytes of `expected` that are missing from the start of `got`. */
export function bytesLost(expected: string, got: string): number {
  let i = 0;
  while (i < expected.length && i < got.length && expected[i] === got[i]) i++;
  return Buffer.byteLength(expected) - Buffer.byteLength(expected.slice(0, i));
}

/** 408, 429 and 5xx gateways (docs/design.md §7): the only statuses after which another attempt is allowed. */
export const RETRYABLE = new Set([408, 429, 500, 502, 503, 504]);
