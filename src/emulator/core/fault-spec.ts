/**
 * The one text form of a fault (docs/faults.md), shared by `X-Textgen-Fault`, `?textgen_fault=`,
 * `serve --fault` and `POST /__textgen/faults`:
 *
 *   SPEC  := FAULT (';' FAULT)*
 *   FAULT := KIND [':' KEY '=' VALUE (',' KEY '=' VALUE)*]
 *
 * A comma splits pairs only where a `key=` follows, so an HTTP date (`retry-after=Wed, 21 Oct 2015 07:28:00 GMT`)
 * stays one value.
 */
import type { BatchFault, BatchFaultEffect, Fault, MalformedAs } from './types.js';

export class FaultSpecError extends Error {
  override readonly name = 'FaultSpecError';
}

/**
 * Default size of `malformed:as=long`: far past any sane event line, and past the client's own line cap
 * (16 Mi characters, src/http/sse-parser.ts), so that the cap is what the switch exercises.
 */
export const DEFAULT_LONG_LINE_BYTES = 32 * 1024 * 1024;
/** More would only measure the machine's memory, not the client. */
const MAX_LONG_LINE_BYTES = 256 * 1024 * 1024;

type Keys = Record<string, string>;

interface KindRule {
  /** Keys this kind accepts besides `times`. */
  keys: string[];
  build(keys: Keys, kind: string): Fault;
}

const MALFORMED_AS: readonly MalformedAs[] = ['json', 'long', 'binary'];

const RULES: Record<string, KindRule> = {
  latency: { keys: ['ms'], build: (k, kind) => latency(required(k, kind, 'ms', 'ms=N or ms=A-B'), kind) },
  status: {
    keys: ['code', 'retry-after', 'retry-after-ms'],
    build: (k, kind) => ({
      kind: 'status',
      status: httpStatus(required(k, kind, 'code', 'code=N'), kind),
      ...retryKeys(k, kind),
    }),
  },
  busy: { keys: ['retry-after', 'retry-after-ms'], build: (k, kind) => ({ kind: 'busy', ...retryKeys(k, kind) }) },
  drop: {
    keys: ['after'],
    // A drop with `after` cuts a non-stream answer too (after half its body): it is one switch for both.
    build: (k, kind) =>
      k.after === undefined
        ? { kind: 'drop' }
        : { kind: 'drop', afterEvents: count(k.after, kind, 'after'), plain: true },
  },
  stall: {
    keys: ['after'],
    build: (k, kind) => ({ kind: 'stall', afterEvents: count(k.after ?? '0', kind, 'after'), plain: true }),
  },
  truncate: {
    keys: ['after'],
    build: (k, kind) => ({ kind: 'truncate', afterEvents: count(k.after ?? '0', kind, 'after'), plain: true }),
  },
  'stream-error': {
    keys: ['after'],
    build: (k, kind) => ({ kind: 'stream-error', afterEvents: count(k.after ?? '0', kind, 'after') }),
  },
  hang: { keys: [], build: () => ({ kind: 'hang' }) },
  malformed: {
    keys: ['after', 'as', 'bytes'],
    build(k, kind) {
      const as = (k.as ?? 'json') as MalformedAs;
      if (!MALFORMED_AS.includes(as))
        throw new FaultSpecError(`fault "${kind}": as must be one of ${MALFORMED_AS.join(', ')}, got "${k.as}"`);
      if (k.bytes !== undefined && as !== 'long')
        throw new FaultSpecError(`fault "${kind}": bytes goes only with as=long`);
      const fault: Extract<Fault, { kind: 'malformed' }> = {
        kind: 'malformed',
        afterEvents: count(k.after ?? '0', kind, 'after'),
      };
      if (as !== 'json') fault.as = as;
      if (k.bytes !== undefined) {
        const bytes = count(k.bytes, kind, 'bytes');
        if (bytes < 1 || bytes > MAX_LONG_LINE_BYTES)
          throw new FaultSpecError(`fault "${kind}": bytes must be from 1 to ${MAX_LONG_LINE_BYTES}, got ${bytes}`);
        fault.bytes = bytes;
      }
      return fault;
    },
  },
  'content-type': {
    keys: ['type'],
    build(k, kind) {
      const type = required(k, kind, 'type', 'type=TYPE/SUBTYPE').toLowerCase();
      if (!/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(type)) {
        throw new FaultSpecError(`fault "${kind}": type must be a media type such as text/html, got "${k.type}"`);
      }
      return { kind: 'content-type', type };
    },
  },
  'batch-expire': { keys: ['after'], build: (k, kind) => batchFault('expire', k, kind) },
  'batch-invalid': { keys: ['line'], build: (k, kind) => batchFault('invalid', k, kind) },
  'batch-partial': { keys: ['every'], build: (k, kind) => batchFault('partial', k, kind) },
  'batch-cancel': { keys: ['after'], build: (k, kind) => batchFault('cancel', k, kind) },
};

/** The batch service's switches: one fault kind (`batch`), written `batch-EFFECT`. */
function batchFault(effect: BatchFaultEffect, k: Keys, kind: string): BatchFault {
  const fault: BatchFault = { kind: 'batch', effect };
  if (k.after !== undefined) fault.after = count(k.after, kind, 'after');
  if (k.line !== undefined) {
    fault.line = count(k.line, kind, 'line');
    if (fault.line < 1) throw new FaultSpecError(`fault "${kind}": line must be a line number ≥ 1, got "${k.line}"`);
  }
  if (k.every !== undefined) {
    fault.every = count(k.every, kind, 'every');
    if (fault.every < 1)
      throw new FaultSpecError(`fault "${kind}": every must be a whole number ≥ 1, got "${k.every}"`);
  }
  return fault;
}

/** `delay` is the programmatic name of `latency`; both are accepted. */
const ALIASES: Record<string, string> = { delay: 'latency' };

export const FAULT_KINDS: readonly string[] = Object.keys(RULES);

/** Parses a spec into faults, in order; throws FaultSpecError with a message naming the part that is wrong. */
export function parseFaultSpec(spec: string): Fault[] {
  const parts = spec
    .split(';')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (parts.length === 0)
    throw new FaultSpecError(`empty fault spec: expected KIND[:key=value,…], e.g. "status:code=503"`);
  return parts.map(parseOne);
}

function parseOne(text: string): Fault {
  const colon = text.indexOf(':');
  const written = (colon < 0 ? text : text.slice(0, colon)).trim().toLowerCase();
  const kind = ALIASES[written] ?? written;
  const rule = RULES[kind];
  if (!rule) throw new FaultSpecError(`unknown fault kind "${written}": expected one of ${FAULT_KINDS.join(', ')}`);
  const keys = colon < 0 ? {} : pairs(text.slice(colon + 1), kind);
  const allowed = [...rule.keys, 'times', 'path'];
  for (const key of Object.keys(keys)) {
    if (!allowed.includes(key))
      throw new FaultSpecError(`fault "${kind}" has no key "${key}": expected ${allowed.join(', ')}`);
  }
  const fault = rule.build(keys, kind);
  if (keys.times !== undefined) fault.times = times(keys.times, kind);
  if (keys.path !== undefined) fault.path = path(keys.path, kind);
  return fault;
}

function pairs(text: string, kind: string): Keys {
  const keys: Keys = {};
  if (text.trim() === '')
    throw new FaultSpecError(`fault "${kind}": nothing after ":"; drop the colon or give key=value pairs`);
  for (const pair of text.split(/,(?=\s*[A-Za-z][A-Za-z-]*\s*=)/)) {
    const eq = pair.indexOf('=');
    if (eq < 0) throw new FaultSpecError(`fault "${kind}": "${pair.trim()}" is not key=value`);
    const key = pair.slice(0, eq).trim().toLowerCase();
    const value = pair.slice(eq + 1).trim();
    if (key === '') throw new FaultSpecError(`fault "${kind}": "${pair.trim()}" has no key before "="`);
    if (value === '') throw new FaultSpecError(`fault "${kind}": key "${key}" has no value`);
    if (key in keys) throw new FaultSpecError(`fault "${kind}": key "${key}" is given twice`);
    keys[key] = value;
  }
  return keys;
}

function required(keys: Keys, kind: string, key: string, form: string): string {
  const value = keys[key];
  if (value === undefined) throw new FaultSpecError(`fault "${kind}" needs ${form}`);
  return value;
}

function count(value: string, kind: string, key: string): number {
  if (!/^\d+$/.test(value))
    throw new FaultSpecError(`fault "${kind}": ${key} must be a whole number ≥ 0, got "${value}"`);
  const n = Number(value);
  // 2^31 − 1: the most a timer can wait (a longer one fires at once), and more events or bytes than any stream carries.
  if (n > 2 ** 31 - 1)
    throw new FaultSpecError(`fault "${kind}": ${key} must be at most ${2 ** 31 - 1}, got "${value}"`);
  return n;
}

function times(value: string, kind: string): number {
  if (value === '*') return Infinity;
  const n = /^\d+$/.test(value) ? Number(value) : 0;
  if (n < 1) throw new FaultSpecError(`fault "${kind}": times must be a whole number ≥ 1 or *, got "${value}"`);
  return n;
}

/** The longest latency a fault may ask for: an hour (for a server that never answers, `hang` is the fault). */
export const MAX_LATENCY_MS = 3_600_000;

function latencyMs(value: string, kind: string): number {
  const ms = count(value, kind, 'ms');
  if (ms > MAX_LATENCY_MS)
    throw new FaultSpecError(
      `fault "${kind}": ms must be at most ${MAX_LATENCY_MS} (an hour), got "${value}"; for a server that never answers use hang`,
    );
  return ms;
}

function path(value: string, kind: string): string {
  if (!value.startsWith('/') || /[\s?#]/.test(value))
    throw new FaultSpecError(`fault "${kind}": path must be a URL path starting with /, got "${value}"`);
  return value;
}

function latency(value: string, kind: string): Fault {
  const range = /^(\d+)\s*-\s*(\d+)$/.exec(value);
  if (!range) return { kind: 'delay', ms: latencyMs(value, kind) };
  const ms = latencyMs(range[1]!, kind);
  const maxMs = latencyMs(range[2]!, kind);
  if (maxMs < ms) throw new FaultSpecError(`fault "${kind}": the range ms=${value} ends before it starts`);
  return ms === maxMs ? { kind: 'delay', ms } : { kind: 'delay', ms, maxMs };
}

function httpStatus(value: string, kind: string): number {
  const n = /^\d{3}$/.test(value) ? Number(value) : 0;
  if (n < 400 || n > 599)
    throw new FaultSpecError(`fault "${kind}": code must be an HTTP error status from 400 to 599, got "${value}"`);
  return n;
}

function retryKeys(keys: Keys, kind: string): { retryAfter?: string; retryAfterMs?: number } {
  const out: { retryAfter?: string; retryAfterMs?: number } = {};
  const after = keys['retry-after'];
  if (after !== undefined) {
    const isDate = /[a-z]/i.test(after) && !Number.isNaN(Date.parse(after));
    if (!/^\d+$/.test(after) && !isDate) {
      throw new FaultSpecError(`fault "${kind}": retry-after must be whole seconds or an HTTP date, got "${after}"`);
    }
    out.retryAfter = after;
  }
  const ms = keys['retry-after-ms'];
  if (ms !== undefined) out.retryAfterMs = count(ms, kind, 'retry-after-ms');
  return out;
}

/**
 * The spec that parses back into this fault. Fields only the programmatic API has are left out: a `status` fault's
 * own `body`, and the stream-only mode of a `drop`/`stall` without `plain`.
 */
export function formatFault(fault: Fault): string {
  const keys: string[] = [];
  let kind: string = fault.kind;
  switch (fault.kind) {
    case 'delay':
      kind = 'latency';
      keys.push(`ms=${fault.maxMs === undefined ? fault.ms : `${fault.ms}-${fault.maxMs}`}`);
      break;
    case 'status':
      keys.push(`code=${fault.status}`);
      if (fault.retryAfter !== undefined) keys.push(`retry-after=${fault.retryAfter}`);
      if (fault.retryAfterMs !== undefined) keys.push(`retry-after-ms=${fault.retryAfterMs}`);
      break;
    case 'busy':
      if (fault.retryAfter !== undefined) keys.push(`retry-after=${fault.retryAfter}`);
      if (fault.retryAfterMs !== undefined) keys.push(`retry-after-ms=${fault.retryAfterMs}`);
      break;
    case 'drop':
      if (fault.afterEvents !== undefined) keys.push(`after=${fault.afterEvents}`);
      break;
    case 'stall':
    case 'truncate':
    case 'stream-error':
      keys.push(`after=${fault.afterEvents}`);
      break;
    case 'malformed':
      keys.push(`after=${fault.afterEvents}`);
      if (fault.as !== undefined && fault.as !== 'json') keys.push(`as=${fault.as}`);
      if (fault.bytes !== undefined) keys.push(`bytes=${fault.bytes}`);
      break;
    case 'content-type':
      keys.push(`type=${fault.type}`);
      break;
    case 'hang':
      break;
    case 'batch':
      kind = `batch-${fault.effect}`;
      if (fault.after !== undefined) keys.push(`after=${fault.after}`);
      if (fault.line !== undefined) keys.push(`line=${fault.line}`);
      if (fault.every !== undefined) keys.push(`every=${fault.every}`);
      break;
  }
  if (fault.times !== undefined && fault.times !== 1)
    keys.push(`times=${fault.times === Infinity ? '*' : fault.times}`);
  if (fault.path !== undefined) keys.push(`path=${fault.path}`);
  return keys.length === 0 ? kind : `${kind}:${keys.join(',')}`;
}
