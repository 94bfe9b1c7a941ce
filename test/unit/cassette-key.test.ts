/**
 * The pure parts of cassettes (src/cassette/): the key rules per protocol and `--match`, the first-difference path of
 * a miss, the event splitter's framing, the entry format's round trip, and the secret forms masked.
 */
import { describe, expect, it } from 'vitest';
import { canonicalOf, differences, keyOf, type StoredRequest } from '../../src/cassette/key.js';
import { DEFAULT_MATCH, parseMatchRules } from '../../src/cassette/match.js';
import { EventSplitter } from '../../src/cassette/sse-split.js';
import { parseEntry, serializeEntry, type Entry } from '../../src/cassette/entry.js';
import { storedRequest, scrubText } from '../../src/cassette/scrub.js';
import { cassetteChoice, runIdOf } from '../../src/cassette/options.js';
import { KnownSecrets } from '../../src/contract/redact.js';

const none = new KnownSecrets();

function request(url: string, body: unknown, headers: Record<string, string> = {}): StoredRequest {
  return storedRequest(
    new URL(url),
    'POST',
    { 'content-type': 'application/json', ...headers },
    body === undefined ? undefined : JSON.stringify(body),
    none,
  );
}

const key = (protocol: string, r: StoredRequest, rules = DEFAULT_MATCH) => keyOf(canonicalOf(protocol, r, rules));

describe('the key', () => {
  it('ignores the host, the key order of the body, credentials and transport headers', () => {
    const a = request('http://a:1/ml/v1/text/generation?version=2024-05-01', {
      input: 'x',
      parameters: { a: 1, b: 2 },
    });
    const b = request(
      'https://b.example/ml/v1/text/generation?version=2025-01-01',
      { parameters: { b: 2, a: 1 }, input: 'x' },
      { authorization: 'Bearer t', 'user-agent': 'other', 'x-request-id': '9' },
    );
    expect(key('watsonx', a)).toBe(key('watsonx', b));
    expect(key('watsonx', a)).toMatch(/^[0-9a-f]{20}$/);
  });

  it('drops each protocol’s volatile fields: watsonx version, project and space; Azure api-version; OI id', () => {
    const wx = (project: string) =>
      request(`http://h/ml/v1/text/generation?version=${project}`, { input: 'x', project_id: project });
    expect(key('watsonx', wx('p1'))).toBe(key('watsonx', wx('p2')));
    const azure = (v: string) => request(`http://h/openai/deployments/d/completions?api-version=${v}`, { prompt: 'x' });
    expect(key('azure-openai', azure('2024-02-01'))).toBe(key('azure-openai', azure('2024-10-21')));
    const oi = (id: string) => request('http://h/v2/models/m/infer', { id, inputs: [] });
    expect(key('open-inference', oi('r1'))).toBe(key('open-inference', oi('r2')));
    // The same query is not volatile for another protocol.
    const aa = (v: string) => request(`http://h/complete?version=${v}`, { prompt: 'x' });
    expect(key('aleph-alpha', aa('1'))).not.toBe(key('aleph-alpha', aa('2')));
    // And the body counts.
    expect(key('openai', request('http://h/v1/completions', { prompt: 'x' }))).not.toBe(
      key('openai', request('http://h/v1/completions', { prompt: 'y' })),
    );
    // The protocol is part of the key.
    const same = request('http://h/v1/completions', { prompt: 'x' });
    expect(key('openai', same)).not.toBe(key('azure-openai', same));
  });

  it('--match widens (ignore=, -body) and narrows (keep=, +query, +header=)', () => {
    const seeded = (seed: number, q = '2024-05-01') =>
      request(
        `http://h/ml/v1/text/generation?version=${q}`,
        { input: 'x', parameters: { seed }, project_id: 'p' },
        {
          'x-tenant': `t${seed}`,
        },
      );
    const ignoreSeed = parseMatchRules(['ignore=parameters.seed']);
    expect(key('watsonx', seeded(1), ignoreSeed)).toBe(key('watsonx', seeded(2), ignoreSeed));
    expect(key('watsonx', seeded(1))).not.toBe(key('watsonx', seeded(2)));
    const noBody = parseMatchRules(['-body']);
    expect(key('watsonx', seeded(1), noBody)).toBe(key('watsonx', seeded(2), noBody));
    const allQuery = parseMatchRules(['+query']);
    expect(key('watsonx', seeded(1, 'a'), allQuery)).not.toBe(key('watsonx', seeded(1, 'b'), allQuery));
    const keepVersion = parseMatchRules(['keep=query.version']);
    expect(key('watsonx', seeded(1, 'a'), keepVersion)).not.toBe(key('watsonx', seeded(1, 'b'), keepVersion));
    const header = parseMatchRules(['+header=X-Tenant,ignore=parameters.seed']);
    expect(key('watsonx', seeded(1), header)).not.toBe(key('watsonx', seeded(2), header));
    const wild = parseMatchRules(['ignore=messages.*.name']);
    const chat = (name: string) =>
      request('http://h/v1/chat/completions', { messages: [{ role: 'user', content: 'x', name }] });
    expect(key('openai', chat('a'), wild)).toBe(key('openai', chat('b'), wild));
  });

  it('refuses a --match rule it does not know, a bad path, and a credential header', () => {
    expect(() => parseMatchRules(['sort=all'])).toThrow(/--match: unknown rule "sort=all"/);
    expect(() => parseMatchRules(['ignore=a..b'])).toThrow(/not a field path/);
    expect(() => parseMatchRules(['+header=authorization'])).toThrow(/carries a credential/);
  });

  it('names the first JSON path where two requests differ, in request order', () => {
    const a = canonicalOf(
      'openai',
      request('http://h/v1/chat/completions', { messages: [{ content: 'x' }] }),
      DEFAULT_MATCH,
    );
    const b = canonicalOf(
      'openai',
      request('http://h/v1/chat/completions', { messages: [{ content: 'y' }] }),
      DEFAULT_MATCH,
    );
    expect(differences(a, b)).toEqual(['$.body.messages[0].content']);
    const c = canonicalOf(
      'openai',
      request('http://h/v1/completions', { messages: [{ content: 'y' }] }),
      DEFAULT_MATCH,
    );
    expect(differences(a, c)[0]).toBe('$.path');
  });
});

describe('the event splitter', () => {
  it('keeps each event with its framing, whatever the line endings and however the bytes were cut', () => {
    const stream = 'data: a\n\n: comment\n\nevent: x\r\ndata: b\r\ndata: c\r\n\r\ndata: d\r\rid: 1\ndata: é\n\ntail';
    const bytes = Buffer.from(stream);
    for (let cut = 1; cut < bytes.length; cut++) {
      const splitter = new EventSplitter();
      const events = [...splitter.push(bytes.subarray(0, cut)), ...splitter.push(bytes.subarray(cut))];
      const tail = splitter.flush();
      expect(
        events.map((e) => e.toString()),
        `cut at ${cut}`,
      ).toEqual([
        'data: a\n\n',
        ': comment\n\n',
        'event: x\r\ndata: b\r\ndata: c\r\n\r\n',
        'data: d\r\r',
        'id: 1\ndata: é\n\n',
      ]);
      expect(tail?.toString()).toBe('tail');
    }
  });
});

describe('the entry file', () => {
  const base = {
    key: '0123456789abcdef0123',
    protocol: 'watsonx',
    request: request('http://h/ml/v1/text/generation_stream', { input: 'x' }),
    status: 200,
    headers: { 'content-type': 'text/event-stream' },
  };

  it('round-trips a stream, events as text or (not UTF-8) base64, and its end', () => {
    const entry: Entry = {
      ...base,
      kind: 'stream',
      events: [
        { t: 1.25, data: Buffer.from('data: {"a":1}\n\n') },
        { t: 20, data: Buffer.from([0x64, 0x3a, 0xff, 0x0a, 0x0a]) },
      ],
      end: 'cut',
      endT: 21,
    };
    const text = serializeEntry(entry);
    expect(text.split('\n')).toHaveLength(5);
    expect(text).toContain('"data_base64":"ZDr/Cgo="');
    const back = parseEntry(text, 'x.jsonl');
    expect(back).toMatchObject({ kind: 'stream', end: 'cut', endT: 21, status: 200 });
    if (back.kind !== 'stream') throw new Error('stream expected');
    expect(back.events.map((e) => Buffer.from(e.data))).toEqual(entry.events.map((e) => Buffer.from(e.data)));
  });

  it('round-trips a whole answer, and names the file of a malformed one', () => {
    const entry: Entry = { ...base, kind: 'whole', body: Buffer.from('{"ok":true}') };
    const text = serializeEntry(entry);
    const back = parseEntry(text, 'x.json');
    expect(back.kind === 'whole' && Buffer.from(back.body).toString()).toBe('{"ok":true}');
    expect(() => parseEntry('{"textgen_cassette":1}', '/c/x.json')).toThrow(
      /\/c\/x\.json is not a textgen cassette entry/,
    );
    expect(() => parseEntry('nope', '/c/x.jsonl')).toThrow(/line 1 is not JSON/);
  });
});

describe('secrets', () => {
  it('masks every form of a known secret: raw, URL- and form-encoded, base64, JSON-escaped (nested, \\u)', () => {
    const secret = 'k3y/+="é\\x y';
    const secrets = new KnownSecrets([secret]);
    const b64 = Buffer.from(secret).toString('base64');
    const level1 = JSON.stringify(secret).slice(1, -1);
    const level2 = JSON.stringify(level1).slice(1, -1);
    const ascii = level1.replace('é', '\\u00e9');
    for (const form of [
      secret,
      encodeURIComponent(secret),
      new URLSearchParams({ k: secret }).toString().slice(2),
      b64,
      b64.replace(/=+$/, ''),
      level1,
      level2,
      ascii,
    ])
      expect(scrubText(`before ${form} after`, secrets), form).toBe('before *** after');
  });

  it('drops credential headers and masks credential query parameters and token-service fields', () => {
    const r = storedRequest(
      new URL('http://h/v1/x?api_key=zzz&keep=1'),
      'POST',
      { authorization: 'Bearer t', cookie: 'a=b', 'api-key': 'k', 'content-type': 'application/json', accept: 'x' },
      '{"apikey":"abcd","input":"x"}',
      none,
    );
    expect(r.headers).toEqual({ 'content-type': 'application/json', accept: 'x' });
    expect(r.query).toEqual([
      ['api_key', '***'],
      ['keep', '1'],
    ]);
    expect(r.body).toEqual({ apikey: '***', input: 'x' });
    expect(scrubText('{"access_token": "eyJ.x.y", "expires_in": 3600}', none)).toBe(
      '{"access_token": "***", "expires_in": 3600}',
    );
  });
});

describe('the flags', () => {
  const now = new Date('2026-12-02T03:00:00Z');
  it('checks --record/--replay/--match/--replay-timing together', () => {
    expect(cassetteChoice({}, {}, now)).toBeUndefined();
    expect(cassetteChoice({ replay: 'c', replayTiming: 'recorded' }, {}, now)).toMatchObject({
      mode: 'replay',
      dir: 'c',
      timing: 'recorded',
      onMiss: 'fail',
      run: '2026-12-02',
    });
    expect(() => cassetteChoice({ match: ['-body'] }, {}, now)).toThrow(/--match needs --record DIR or --replay DIR/);
    expect(() => cassetteChoice({ record: 'c', replayTiming: 'none' }, {}, now)).toThrow(/--replay-timing needs/);
    expect(() => cassetteChoice({ record: 'c', replay: 'c' }, {}, now)).toThrow(/cannot be used together/);
  });

  it('names the replay run from TEXTGEN_CASSETTE_RUN, the CI run, or the day; never a path', () => {
    expect(runIdOf({ TEXTGEN_CASSETTE_RUN: 'nightly-7' }, now)).toBe('nightly-7');
    expect(runIdOf({ GITHUB_RUN_ID: '123' }, now)).toBe('123');
    expect(runIdOf({ TEXTGEN_CASSETTE_RUN: '../../etc' }, now)).toBe('2026-12-02');
    expect(runIdOf({ TEXTGEN_CASSETTE_RUN: 'a/b' }, now)).toBe('a_b');
  });
});
