/**
 * Cassettes as a Transport (src/http/transport.ts) around the real one: `record` sends every request and stores its
 * answer as it passes through (a stream event by event, with the time each arrived, while the caller reads it);
 * `replay` answers from the stored entries and never opens a connection — a miss is an error naming the key, the
 * nearest entry and the first place they differ, or with `onMiss: 'forward'` (serve's cache) is sent and recorded.
 * Everything above the transport (retries, decoding, the SSE parser, the adapters) runs as it does against the
 * service, which is what makes a replay a test of the code and not of a mock. docs/cassettes.md.
 */
import { PassThrough, Readable } from 'node:stream';
import { ApiError } from '../contract/errors.js';
import type { KnownSecrets } from '../contract/redact.js';
import type { Transport, TransportBody, TransportRequest, TransportResponse } from '../http/transport.js';
import type { Entry, StreamEvent } from './entry.js';
import { canonicalOf, differences, keyOf, type StoredRequest } from './key.js';
import type { MatchRules } from './match.js';
import { keptResponseHeader, scrubBytes, scrubText, storedRequest } from './scrub.js';
import { EventSplitter } from './sse-split.js';
import { CassetteDir, entryName } from './store.js';

export type ReplayTiming = 'none' | 'recorded';

export interface CassetteSettings {
  mode: 'record' | 'replay';
  dir: string;
  /** The provider kind of the profile whose calls these are (the key's first part). */
  protocol: string;
  match: MatchRules;
  timing: ReplayTiming;
  /** What a replay does without an entry: `fail` (an error), `forward` (send it, record the answer: a cache). */
  onMiss: 'fail' | 'forward';
  /** The run a replay counts its hits under (store.ts runIdOf). */
  run: string;
  /** Told about a call that could not be recorded (an answer compressed despite `accept-encoding: identity`). */
  warn?: (line: string) => void;
}

/** The answer a replay has no entry for: exit 4 on a client, a 404 in the front dialect on `serve`. */
export class CassetteMiss extends ApiError {
  readonly key: string;
  constructor(message: string, key: string) {
    super({ provider: 'cassette', status: 404, code: 'cassette_miss', message });
    this.message = message;
    this.key = key;
  }
}

/** Whole answers textgen would read (src/contract/json-depth.ts MAX_ANSWER_BYTES); a larger one is not recorded. */
const MAX_RECORDED_BYTES = 128 * 1024 * 1024;
const DUMP_LIMIT = 128 * 1024;

function coded(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

function flat(headers: TransportResponse['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function isEventStream(headers: Record<string, string>): boolean {
  return (headers['content-type'] ?? '').toLowerCase().includes('text/event-stream');
}

function drain(body: Readable): Promise<void> {
  return new Promise((resolve) => {
    if (body.readableEnded || body.destroyed) {
      resolve();
      return;
    }
    let read = 0;
    body.on('data', (chunk: Uint8Array) => {
      read += chunk.length;
      if (read > DUMP_LIMIT) body.destroy();
    });
    body.once('end', resolve);
    body.once('close', resolve);
    body.resume();
  });
}

function shortJson(value: unknown): string {
  const text = value === undefined ? 'nothing' : JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

/** The value at a JSON path `differences` made (`$.body.messages[0].content`), for the miss message. */
function at(value: unknown, jsonPath: string): unknown {
  const parts = jsonPath.match(/\.([A-Za-z_][\w-]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g) ?? [];
  let current = value;
  for (const part of parts) {
    if (current === null || typeof current !== 'object') return undefined;
    const key = part.startsWith('.')
      ? part.slice(1)
      : part.startsWith('["')
        ? (JSON.parse(part.slice(1, -1)) as string)
        : Number(part.slice(1, -1));
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}

/** Top-level body fields that only a token service takes: IAM's form, CPD's authorize JSON, OAuth clients. */
const CREDENTIAL_FIELDS = new Set(['apikey', 'api_key', 'password', 'client_secret', 'refresh_token']);

function isCredentialExchange(request: TransportRequest): boolean {
  const body = request.body;
  if (body === undefined || body === '' || request.method.toUpperCase() !== 'POST') return false;
  const trimmed = body.trimStart();
  if (trimmed.startsWith('{')) {
    try {
      const value = JSON.parse(body) as unknown;
      return (
        value !== null &&
        typeof value === 'object' &&
        Object.keys(value).some((k) => CREDENTIAL_FIELDS.has(k.toLowerCase()))
      );
    } catch {
      return false;
    }
  }
  if (/^[\w.~%+-]+=/.test(trimmed) && !trimmed.includes('\n'))
    return [...new URLSearchParams(body).keys()].some((k) => CREDENTIAL_FIELDS.has(k.toLowerCase()));
  return false;
}

/**
 * A Transport that records or replays. `inner` gives the real transport for a URL; it is never called in replay
 * unless a miss is forwarded, so a replay opens no socket. `secrets` is the HTTP client's: every credential it sends
 * is in it before the request reaches this transport.
 */
export function cassetteTransport(
  inner: (url: URL) => Promise<Transport>,
  settings: CassetteSettings,
  secrets: KnownSecrets,
): Transport {
  const store = new CassetteDir(settings.dir);
  const scrub = (text: string) => scrubText(text, secrets);
  // The entries, parsed once per process for the slow path (a key not found under its own name).
  let scanned: Promise<Array<{ name: string; entry: Entry }>> | undefined;
  const scan = () =>
    (scanned ??= store.list().then(async (listed) => {
      const out: Array<{ name: string; entry: Entry }> = [];
      for (const l of listed) {
        const entry = await store.read(l.name).catch(() => undefined);
        if (entry) out.push({ name: l.name, entry });
      }
      return out;
    }));

  async function find(stored: StoredRequest, key: string): Promise<Entry | undefined> {
    for (const stream of [false, true]) {
      const entry = await store.read(entryName(settings.protocol, stored.method, stored.path, key, stream));
      if (entry && entry.protocol === settings.protocol) return entry;
    }
    // Recorded under other --match rules: any entry whose stored request has this key under today's rules.
    for (const { entry } of await scan()) {
      if (entry.protocol !== settings.protocol) continue;
      if (keyOf(canonicalOf(entry.protocol, entry.request, settings.match)) === key) return entry;
    }
    return undefined;
  }

  async function miss(stored: StoredRequest, key: string): Promise<CassetteMiss> {
    const mine = canonicalOf(settings.protocol, stored, settings.match);
    const what = `${settings.protocol} ${stored.method} ${stored.path}`;
    // Nearest: the same protocol, method and path first, then the fewest differences.
    let best: { name: string; diffs: string[]; theirs: unknown; score: number } | undefined;
    for (const { name, entry } of await scan()) {
      const theirs = canonicalOf(entry.protocol, entry.request, settings.match);
      const diffs = differences(mine, theirs);
      const score =
        diffs.length +
        (theirs.protocol === mine.protocol ? 0 : 4000) +
        (theirs.method === mine.method ? 0 : 2000) +
        (theirs.path === mine.path ? 0 : 1000);
      if (best === undefined || score < best.score) best = { name, diffs, theirs, score };
    }
    const root = store.root;
    if (best === undefined)
      return new CassetteMiss(`cassette miss: no entry for ${what} (key ${key}); ${root} holds no entries`, key);
    const first = best.diffs[0] ?? '$';
    const sent = shortJson(at(mine, first));
    const recorded = shortJson(at(best.theirs, first));
    return new CassetteMiss(
      `cassette miss: no entry for ${what} (key ${key}); nearest is ${root}/${best.name}, first different at ${first} (sent ${sent}, recorded ${recorded})`,
      key,
    );
  }

  async function forward(url: URL, request: TransportRequest, stored: StoredRequest, key: string) {
    const real = await inner(url);
    // Asked plain: a compressed answer could not be searched for secrets, nor read in a review.
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers))
      if (name.toLowerCase() !== 'accept-encoding') headers[name] = value;
    headers['accept-encoding'] = 'identity';
    const res = await real.request(url, { ...request, headers });
    return recording(res, stored, key);
  }

  function recording(res: TransportResponse, stored: StoredRequest, key: string): TransportResponse {
    const headers = flat(res.headers);
    const stream = isEventStream(headers);
    const encoding = (headers['content-encoding'] ?? 'identity').trim().toLowerCase();
    const started = nowMs();
    const kept: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) if (keptResponseHeader(name)) kept[name] = scrub(value);
    const source = res.body as unknown as Readable;
    const out = new PassThrough();
    // Until response.ts listens: an error in between must not be an uncaught 'error' event.
    out.on('error', () => undefined);
    const splitter = new EventSplitter();
    const events: StreamEvent[] = [];
    const parts: Uint8Array[] = [];
    let size = 0;
    let recordable = encoding === 'identity';
    if (!recordable)
      settings.warn?.(
        `warning: cassette: ${stored.method} ${stored.path} came ${encoding}-encoded though asked plain; not recorded`,
      );
    let ended = false;
    let failed = false;

    // Resolves once the entry is on disk: the answer ends only after it, so a client (or serve's cache, `--on-miss
    // forward`) that asks again at once finds it, and a CLI that exits when the answer ends loses no recording.
    const finish = async (end: 'complete' | 'cut'): Promise<void> => {
      if (!recordable) return;
      recordable = false;
      const t = nowMs() - started;
      const base = { key, protocol: settings.protocol, request: stored, status: res.statusCode, headers: kept };
      let entry: Entry;
      if (stream) {
        const tail = splitter.flush();
        if (tail) events.push({ t, data: tail });
        entry = {
          ...base,
          kind: 'stream',
          events: events.map((e) => ({ t: e.t, data: scrubBytes(e.data, secrets) })),
          end,
          endT: t,
        };
      } else {
        if (end === 'cut') return; // the client retries a whole answer that broke off; nothing to keep
        entry = { ...base, kind: 'whole', body: scrubBytes(Buffer.concat(parts), secrets) };
      }
      const name = entryName(settings.protocol, stored.method, stored.path, key, stream);
      await store.write(name, entry, scrub).catch((e: unknown) => {
        settings.warn?.(
          `warning: cassette: cannot write ${store.root}/${name}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
        );
      });
    };

    source.on('data', (chunk: Uint8Array) => {
      if (recordable) {
        const t = nowMs() - started;
        if (stream) for (const data of splitter.push(chunk)) events.push({ t, data });
        else {
          size += chunk.length;
          if (size > MAX_RECORDED_BYTES) recordable = false;
          else parts.push(chunk);
        }
      }
      if (!out.write(chunk)) source.pause();
    });
    out.on('drain', () => source.resume());
    source.on('end', () => {
      ended = true;
      void finish('complete').finally(() => out.end());
    });
    source.on('error', (err: Error) => {
      failed = true;
      if ((err as { code?: unknown }).code !== 'ABORT_ERR') void finish('cut');
      out.destroy(err);
    });
    source.on('close', () => {
      if (ended || failed) return;
      void finish('cut');
      out.destroy(coded('other side closed', 'UND_ERR_CLOSED'));
    });
    // The reader gave up (an abort, --max-time, a body too large): the connection goes too, and nothing is kept.
    out.on('close', () => {
      if (!ended && !failed) {
        recordable = false;
        source.destroy();
      }
    });
    return {
      statusCode: res.statusCode,
      headers: res.headers,
      body: out as unknown as TransportBody,
      dump: () => drain(out),
    };
  }

  function replaying(entry: Entry, signal: AbortSignal | undefined): TransportResponse {
    const chunks: Array<{ t: number; data: Uint8Array }> =
      entry.kind === 'whole' ? (entry.body.length > 0 ? [{ t: 0, data: entry.body }] : []) : entry.events;
    const endT = entry.kind === 'stream' ? entry.endT : 0;
    const cut = entry.kind === 'stream' && entry.end === 'cut';
    const timers = new Set<NodeJS.Timeout | NodeJS.Immediate>();
    const body = new Readable({ read() {} });
    body.on('error', () => undefined);
    const started = nowMs();
    const onAbort = () => body.destroy(coded('This operation was aborted', 'ABORT_ERR'));
    signal?.addEventListener('abort', onAbort, { once: true });
    body.once('close', () => {
      signal?.removeEventListener('abort', onAbort);
      for (const t of timers) {
        clearTimeout(t as NodeJS.Timeout);
        clearImmediate(t as NodeJS.Immediate);
      }
    });
    // One event per turn of the loop (or at its recorded time): each reaches the reader as its own chunk.
    let index = 0;
    const step = (): void => {
      if (body.destroyed) return;
      if (index < chunks.length) {
        body.push(chunks[index]!.data);
        index++;
        schedule(index < chunks.length ? chunks[index]!.t : endT);
        return;
      }
      if (cut) body.destroy(coded('aborted', 'ECONNRESET'));
      else body.push(null);
    };
    const schedule = (t: number): void => {
      const wait = settings.timing === 'recorded' ? t - (nowMs() - started) : 0;
      if (wait >= 1) {
        const timer = setTimeout(() => {
          timers.delete(timer);
          step();
        }, wait);
        timers.add(timer);
      } else {
        const immediate = setImmediate(() => {
          timers.delete(immediate);
          step();
        });
        timers.add(immediate);
      }
    };
    schedule(chunks[0]?.t ?? endT);
    const headers: Record<string, string> = { ...entry.headers };
    return {
      statusCode: entry.status,
      headers,
      body: body as unknown as TransportBody,
      dump: () => drain(body),
    };
  }

  return {
    offline: settings.mode === 'replay' && settings.onMiss === 'fail',
    async request(url, request) {
      // A token exchange (its body carries a credential) is neither recorded nor replayed: it goes to its service.
      if (settings.mode === 'record' || settings.onMiss === 'forward')
        if (isCredentialExchange(request)) return (await inner(url)).request(url, request);
      const stored = storedRequest(url, request.method, request.headers, request.body, secrets);
      const key = keyOf(canonicalOf(settings.protocol, stored, settings.match));
      if (settings.mode === 'record') return forward(url, request, stored, key);
      const entry = await find(stored, key);
      if (entry !== undefined) {
        await store.markHit(settings.run, entry.key);
        return replaying(entry, request.signal);
      }
      if (settings.onMiss === 'forward') return forward(url, request, stored, key);
      throw await miss(stored, key);
    },
    async destroy() {
      await store.settled();
    },
  };
}
