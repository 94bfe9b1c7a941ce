import { describe, expect, test } from 'vitest';
import { FAULT_KINDS, FaultSpecError, formatFault, parseFaultSpec } from '../../src/emulator/core/fault-spec.js';
import type { Fault } from '../../src/emulator/core/types.js';

describe('parseFaultSpec: every kind and every key', () => {
  test.each<[string, Fault[]]>([
    ['latency:ms=250', [{ kind: 'delay', ms: 250 }]],
    ['latency:ms=100-400', [{ kind: 'delay', ms: 100, maxMs: 400 }]],
    ['latency:ms=300-300', [{ kind: 'delay', ms: 300 }]],
    ['delay:ms=5', [{ kind: 'delay', ms: 5 }]],
    ['status:code=503', [{ kind: 'status', status: 503 }]],
    ['status:code=429,retry-after=2', [{ kind: 'status', status: 429, retryAfter: '2' }]],
    ['status:code=429,retry-after-ms=1500', [{ kind: 'status', status: 429, retryAfterMs: 1500 }]],
    [
      'status:code=429,retry-after=Wed, 21 Oct 2015 07:28:00 GMT,retry-after-ms=10',
      [{ kind: 'status', status: 429, retryAfter: 'Wed, 21 Oct 2015 07:28:00 GMT', retryAfterMs: 10 }],
    ],
    ['busy', [{ kind: 'busy' }]],
    ['busy:retry-after=3', [{ kind: 'busy', retryAfter: '3' }]],
    ['busy:retry-after-ms=250', [{ kind: 'busy', retryAfterMs: 250 }]],
    ['drop', [{ kind: 'drop' }]],
    ['drop:after=4', [{ kind: 'drop', afterEvents: 4, plain: true }]],
    ['stall', [{ kind: 'stall', afterEvents: 0, plain: true }]],
    ['stall:after=2', [{ kind: 'stall', afterEvents: 2, plain: true }]],
    ['truncate', [{ kind: 'truncate', afterEvents: 0, plain: true }]],
    ['truncate:after=5', [{ kind: 'truncate', afterEvents: 5, plain: true }]],
    ['stream-error', [{ kind: 'stream-error', afterEvents: 0 }]],
    ['stream-error:after=3', [{ kind: 'stream-error', afterEvents: 3 }]],
    ['hang', [{ kind: 'hang' }]],
    ['malformed', [{ kind: 'malformed', afterEvents: 0 }]],
    ['malformed:after=2,as=json', [{ kind: 'malformed', afterEvents: 2 }]],
    ['malformed:after=1,as=long', [{ kind: 'malformed', afterEvents: 1, as: 'long' }]],
    ['malformed:as=long,bytes=1000', [{ kind: 'malformed', afterEvents: 0, as: 'long', bytes: 1000 }]],
    ['malformed:as=binary', [{ kind: 'malformed', afterEvents: 0, as: 'binary' }]],
    ['content-type:type=text/html', [{ kind: 'content-type', type: 'text/html' }]],
    ['content-type:type=Application/JSON', [{ kind: 'content-type', type: 'application/json' }]],
    ['status:code=500,times=3', [{ kind: 'status', status: 500, times: 3 }]],
    ['busy:times=*', [{ kind: 'busy', times: Infinity }]],
    ['  STATUS : code = 502 , times = 2 ', [{ kind: 'status', status: 502, times: 2 }]],
    [
      'status:code=429;drop;latency:ms=10',
      [{ kind: 'status', status: 429 }, { kind: 'drop' }, { kind: 'delay', ms: 10 }],
    ],
    ['hang;;', [{ kind: 'hang' }]],
    [
      'latency:ms=500,path=/ml/v1/foundation_model_specs',
      [{ kind: 'delay', ms: 500, path: '/ml/v1/foundation_model_specs' }],
    ],
    [
      'status:code=503,times=2,path=/identity/token',
      [{ kind: 'status', status: 503, times: 2, path: '/identity/token' }],
    ],
  ])('%s', (spec, faults) => {
    expect(parseFaultSpec(spec)).toEqual(faults);
  });
});

describe('parseFaultSpec: a bad spec is an error that says what is wrong', () => {
  test.each<[string, string]>([
    ['', 'empty fault spec: expected KIND[:key=value,…], e.g. "status:code=503"'],
    [' ; ', 'empty fault spec: expected KIND[:key=value,…], e.g. "status:code=503"'],
    [
      'explode',
      'unknown fault kind "explode": expected one of latency, status, busy, drop, stall, truncate, stream-error, hang, malformed, content-type, batch-expire, batch-invalid, batch-partial, batch-cancel',
    ],
    ['latency', 'fault "latency" needs ms=N or ms=A-B'],
    ['latency:ms=fast', 'fault "latency": ms must be a whole number ≥ 0, got "fast"'],
    ['latency:ms=500-100', 'fault "latency": the range ms=500-100 ends before it starts'],
    ['status', 'fault "status" needs code=N'],
    ['status:', 'fault "status": nothing after ":"; drop the colon or give key=value pairs'],
    ['status:code=200', 'fault "status": code must be an HTTP error status from 400 to 599, got "200"'],
    ['status:code=5000', 'fault "status": code must be an HTTP error status from 400 to 599, got "5000"'],
    [
      'status:code=429,retry-after=soon',
      'fault "status": retry-after must be whole seconds or an HTTP date, got "soon"',
    ],
    ['status:code=429,retry-after=-1', 'fault "status": retry-after must be whole seconds or an HTTP date, got "-1"'],
    ['status:code=429,retry-after-ms=1.5', 'fault "status": retry-after-ms must be a whole number ≥ 0, got "1.5"'],
    ['status:code=429,code=500', 'fault "status": key "code" is given twice'],
    ['status:code', 'fault "status": "code" is not key=value'],
    ['status:code=', 'fault "status": key "code" has no value'],
    ['status:=503', 'fault "status": "=503" has no key before "="'],
    ['busy:code=503', 'fault "busy" has no key "code": expected retry-after, retry-after-ms, times'],
    ['drop:aftr=2', 'fault "drop" has no key "aftr": expected after, times'],
    ['drop:after=-1', 'fault "drop": after must be a whole number ≥ 0, got "-1"'],
    ['stall:after=x', 'fault "stall": after must be a whole number ≥ 0, got "x"'],
    ['truncate:after=', 'fault "truncate": key "after" has no value'],
    ['stream-error:after=1.0', 'fault "stream-error": after must be a whole number ≥ 0, got "1.0"'],
    ['hang:after=1', 'fault "hang" has no key "after": expected times'],
    ['malformed:as=xml', 'fault "malformed": as must be one of json, long, binary, got "xml"'],
    ['malformed:bytes=10', 'fault "malformed": bytes goes only with as=long'],
    ['malformed:as=long,bytes=0', 'fault "malformed": bytes must be from 1 to 268435456, got 0'],
    ['content-type', 'fault "content-type" needs type=TYPE/SUBTYPE'],
    ['content-type:type=html', 'fault "content-type": type must be a media type such as text/html, got "html"'],
    ['status:code=500,times=0', 'fault "status": times must be a whole number ≥ 1 or *, got "0"'],
    ['status:code=500,times=many', 'fault "status": times must be a whole number ≥ 1 or *, got "many"'],
    ['latency:ms=1,path=ml/v1/text', 'fault "latency": path must be a URL path starting with /, got "ml/v1/text"'],
    [
      'latency:ms=1,path=/ml/v1/text?version=1',
      'fault "latency": path must be a URL path starting with /, got "/ml/v1/text?version=1"',
    ],
    [
      'status:code=503;nope',
      'unknown fault kind "nope": expected one of latency, status, busy, drop, stall, truncate, stream-error, hang, malformed, content-type, batch-expire, batch-invalid, batch-partial, batch-cancel',
    ],
  ])('%j', (spec, message) => {
    expect(() => parseFaultSpec(spec)).toThrow(FaultSpecError);
    expect(() => parseFaultSpec(spec)).toThrow(message);
  });
});

describe('formatFault', () => {
  test.each([
    'latency:ms=250',
    'latency:ms=100-400',
    'status:code=429,retry-after=2,retry-after-ms=1500',
    'status:code=503,times=*',
    'busy:retry-after=1',
    'busy',
    'drop',
    'drop:after=3',
    'stall:after=0',
    'truncate:after=2',
    'stream-error:after=2,times=2',
    'hang',
    'malformed:after=1',
    'malformed:after=0,as=long,bytes=1000',
    'malformed:after=4,as=binary',
    'content-type:type=text/html',
    'latency:ms=2000,path=/ml/v1/foundation_model_specs',
    'status:code=503,times=*,path=/icp4d-api',
  ])('%s parses and prints back the same', (spec) => {
    const [fault] = parseFaultSpec(spec);
    expect(formatFault(fault!)).toBe(spec);
  });

  test('every kind has a text form', () => {
    expect(FAULT_KINDS).toEqual([
      'latency',
      'status',
      'busy',
      'drop',
      'stall',
      'truncate',
      'stream-error',
      'hang',
      'malformed',
      'content-type',
      'batch-expire',
      'batch-invalid',
      'batch-partial',
      'batch-cancel',
    ]);
  });

  test.each([
    'batch-expire:after=3',
    'batch-invalid:line=2',
    'batch-partial:every=4',
    'batch-cancel:after=1,path=/v1/batches',
    'batch-expire',
  ])('batch switch %s parses and prints back the same', (spec) => {
    const [fault] = parseFaultSpec(spec);
    expect(fault!.kind).toBe('batch');
    expect(formatFault(fault!)).toBe(spec);
  });

  test('batch switches name their key and range', () => {
    expect(() => parseFaultSpec('batch-partial:every=0')).toThrow('every must be a whole number ≥ 1');
    expect(() => parseFaultSpec('batch-invalid:line=0')).toThrow('line must be a line number ≥ 1');
    expect(() => parseFaultSpec('batch-expire:every=2')).toThrow('fault "batch-expire" has no key "every"');
  });

  test('programmatic-only fields are left out: a status body, a stream-only drop', () => {
    expect(formatFault({ kind: 'status', status: 500, body: { error: 'x' } })).toBe('status:code=500');
    expect(formatFault({ kind: 'drop', afterEvents: 2 })).toBe('drop:after=2');
    expect(formatFault({ kind: 'delay', ms: 1, times: 1 })).toBe('latency:ms=1');
  });
});
