/**
 * One cassette entry, and its file: a whole answer is one JSON document (`NAME.json`); a stream is JSON Lines
 * (`NAME.jsonl`): a first line with the request and the status and headers, one line per event as it arrived (its
 * bytes with their framing, `t` ms after the headers), and a last line saying how the stream ended. A body that is
 * valid UTF-8 is stored as text (readable in a review), any other as base64, so a replay gives back the same bytes.
 * docs/cassettes.md shows both.
 */
import { UsageError } from '../contract/errors.js';
import type { StoredRequest } from './key.js';

export const FORMAT_VERSION = 1;

export interface StreamEvent {
  /** Milliseconds after the answer's headers arrived. */
  t: number;
  data: Uint8Array;
}

interface EntryBase {
  key: string;
  protocol: string;
  request: StoredRequest;
  status: number;
  headers: Record<string, string>;
}

export interface WholeEntry extends EntryBase {
  kind: 'whole';
  body: Uint8Array;
}

export interface StreamEntry extends EntryBase {
  kind: 'stream';
  events: StreamEvent[];
  /** `complete`: the stream ended; `cut`: the connection broke off after the last event (replayed as a cut). */
  end: 'complete' | 'cut';
  /** When it ended, ms after the headers. */
  endT: number;
}

export type Entry = WholeEntry | StreamEntry;

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** `{ [name]: text }` when the bytes are UTF-8 that encodes back to the same bytes, else `{ [name_base64]: … }`. */
function bytesField(name: string, bytes: Uint8Array): Record<string, string> {
  try {
    const text = UTF8.decode(bytes);
    if (Buffer.byteLength(text) === bytes.length) return { [name]: text };
  } catch {
    // not UTF-8: base64 below
  }
  return { [`${name}_base64`]: Buffer.from(bytes).toString('base64') };
}

function readBytes(record: Record<string, unknown>, name: string, file: string): Uint8Array {
  const text = record[name];
  if (typeof text === 'string') return Buffer.from(text, 'utf8');
  const base64 = record[`${name}_base64`];
  if (typeof base64 === 'string') return Buffer.from(base64, 'base64');
  throw malformed(file, `no ${name}`);
}

function malformed(file: string, what: string): UsageError {
  return new UsageError(`${file} is not a textgen cassette entry: ${what}`);
}

function head(entry: Entry): Record<string, unknown> {
  return {
    textgen_cassette: FORMAT_VERSION,
    key: entry.key,
    protocol: entry.protocol,
    request: entry.request,
    response: { status: entry.status, headers: entry.headers },
  };
}

/** Times rounded to 0.1 ms: finer is noise, and shorter lines read better. */
function ms(t: number): number {
  return Math.round(t * 10) / 10;
}

export function serializeEntry(entry: Entry): string {
  if (entry.kind === 'whole') {
    const doc = head(entry);
    doc.response = { status: entry.status, headers: entry.headers, ...bytesField('body', entry.body) };
    return `${JSON.stringify(doc, null, 2)}\n`;
  }
  const lines = [JSON.stringify({ ...head(entry), stream: true })];
  for (const event of entry.events) lines.push(JSON.stringify({ t: ms(event.t), ...bytesField('data', event.data) }));
  lines.push(JSON.stringify({ t: ms(entry.endT), end: entry.end }));
  return `${lines.join('\n')}\n`;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function parseHead(value: unknown, file: string): Omit<EntryBase, never> & { stream: boolean } {
  if (!isRecord(value) || value.textgen_cassette !== FORMAT_VERSION) throw malformed(file, 'no textgen_cassette: 1');
  const { key, protocol, request, response } = value;
  if (typeof key !== 'string' || !/^[0-9a-f]{20}$/.test(key)) throw malformed(file, 'no key');
  if (typeof protocol !== 'string') throw malformed(file, 'no protocol');
  if (
    !isRecord(request) ||
    typeof request.method !== 'string' ||
    typeof request.path !== 'string' ||
    !Array.isArray(request.query) ||
    !request.query.every((p) => Array.isArray(p) && p.length === 2 && p.every((s) => typeof s === 'string')) ||
    !isRecord(request.headers) ||
    !Object.values(request.headers).every((v) => typeof v === 'string') ||
    !('body' in request)
  )
    throw malformed(file, 'no request (method, path, query, headers, body)');
  if (!isRecord(response) || !Number.isInteger(response.status) || !isRecord(response.headers))
    throw malformed(file, 'no response status and headers');
  const headers: Record<string, string> = {};
  for (const [name, v] of Object.entries(response.headers)) if (typeof v === 'string') headers[name] = v;
  return {
    key,
    protocol,
    request: request as unknown as StoredRequest,
    status: response.status as number,
    headers,
    stream: value.stream === true,
  };
}

/** Parses the text of an entry file (`file` names it in errors); a malformed one is a usage error naming it. */
export function parseEntry(text: string, file: string): Entry {
  if (file.endsWith('.jsonl')) {
    const lines = text.split('\n').filter((l) => l !== '');
    const records = lines.map((line, i) => {
      try {
        return JSON.parse(line) as unknown;
      } catch {
        throw malformed(file, `line ${i + 1} is not JSON`);
      }
    });
    const first = parseHead(records[0], file);
    const events: StreamEvent[] = [];
    let end: StreamEntry['end'] | undefined;
    let endT = 0;
    for (const [i, record] of records.slice(1).entries()) {
      if (!isRecord(record) || typeof record.t !== 'number' || !Number.isFinite(record.t) || record.t < 0)
        throw malformed(file, `line ${i + 2} has no time`);
      if (record.end === 'complete' || record.end === 'cut') {
        end = record.end;
        endT = record.t;
        break;
      }
      events.push({ t: record.t, data: readBytes(record, 'data', `${file} line ${i + 2}`) });
    }
    if (end === undefined) throw malformed(file, 'no last line saying how the stream ended');
    const { stream: _, ...base } = first;
    return { kind: 'stream', ...base, events, end, endT };
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw malformed(file, 'not JSON');
  }
  const { stream: _, ...base } = parseHead(doc, file);
  const response = (doc as { response: Record<string, unknown> }).response;
  return { kind: 'whole', ...base, body: readBytes(response, 'body', file) };
}
