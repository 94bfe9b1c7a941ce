import { describe, expect, it } from 'vitest';
import { MAX_SSE_LINE_LENGTH, parseSse, parseSseBatches, SseLimitError, SseParser } from '../../src/http/sse-parser.js';
import type { SseEvent } from '../../src/contract/http.js';

const encoder = new TextEncoder();

function parseChunks(chunks: Array<Uint8Array | string>): SseEvent[] {
  const parser = new SseParser();
  const events: SseEvent[] = [];
  for (const chunk of chunks) events.push(...parser.push(chunk));
  events.push(...parser.end());
  return events;
}

function parseWhole(text: string): SseEvent[] {
  return parseChunks([encoder.encode(text)]);
}

interface Fixture {
  name: string;
  stream: string;
  expected: SseEvent[];
}

const fixtures: Fixture[] = [
  {
    name: 'watsonx-like id/event/data events',
    stream:
      'id: 1\nevent: message\ndata: {"results":[{"generated_text":"Hel"}]}\n\n' +
      'id: 2\nevent: message\ndata: {"results":[{"generated_text":"lo"}]}\n\n' +
      'id: 3\nevent: close\ndata: {}\n\n',
    expected: [
      { event: 'message', data: '{"results":[{"generated_text":"Hel"}]}', id: '1' },
      { event: 'message', data: '{"results":[{"generated_text":"lo"}]}', id: '2' },
      { event: 'close', data: '{}', id: '3' },
    ],
  },
  {
    name: 'Azure-like data-only events ending in [DONE]',
    stream: 'data: {"choices":[{"text":"a"}]}\n\n' + 'data: {"choices":[{"text":"b"}]}\n\n' + 'data: [DONE]\n\n',
    expected: [
      { event: 'message', data: '{"choices":[{"text":"a"}]}' },
      { event: 'message', data: '{"choices":[{"text":"b"}]}' },
      { event: 'message', data: '[DONE]' },
    ],
  },
  {
    name: 'keep-alive comments, data without a space, multi-line data',
    stream:
      ': keep-alive\n\n' +
      'data:no-space\n\n' +
      ':another comment\ndata: line one\ndata:  two spaces keep one\ndata\n\n' +
      'event: close\ndata: {}\n\n',
    expected: [
      { event: 'message', data: 'no-space' },
      { event: 'message', data: 'line one\n two spaces keep one\n' },
      { event: 'close', data: '{}' },
    ],
  },
  {
    name: 'CRLF line ends',
    stream: 'event: token\r\ndata: a\r\ndata: b\r\n\r\nid: 7\r\ndata: c\r\n\r\n',
    expected: [
      { event: 'token', data: 'a\nb' },
      { event: 'message', data: 'c', id: '7' },
    ],
  },
  {
    name: 'lone CR line ends, mixed with LF',
    stream: 'data: a\rdata: b\r\rdata: c\n\ndata: d\r\n\rdata: e\r\r',
    expected: [
      { event: 'message', data: 'a\nb' },
      { event: 'message', data: 'c' },
      { event: 'message', data: 'd' },
      { event: 'message', data: 'e' },
    ],
  },
  {
    name: 'multi-byte characters',
    stream: 'data: é漢🙂\n\nevent: 漢字\ndata: 🙂🙂 é\n\n',
    expected: [
      { event: 'message', data: 'é漢🙂' },
      { event: '漢字', data: '🙂🙂 é' },
    ],
  },
];

describe('SseParser on fixture streams', () => {
  it.each(fixtures)('$name: one chunk gives the expected events', ({ stream, expected }) => {
    expect(parseWhole(stream)).toEqual(expected);
  });

  it.each(fixtures)('$name: every two-chunk split of the bytes gives the same events', ({ stream }) => {
    const bytes = encoder.encode(stream);
    const whole = parseChunks([bytes]);
    for (let cut = 0; cut <= bytes.length; cut += 1) {
      expect(parseChunks([bytes.subarray(0, cut), bytes.subarray(cut)]), `cut at byte ${cut}`).toEqual(whole);
    }
  });

  it.each(fixtures)('$name: one-byte chunks give the same events', ({ stream }) => {
    const bytes = encoder.encode(stream);
    const chunks = Array.from(bytes, (_, i) => bytes.subarray(i, i + 1));
    expect(parseChunks(chunks)).toEqual(parseChunks([bytes]));
  });

  it.each(fixtures)('$name: string chunks split at every code unit give the same events', ({ stream }) => {
    const whole = parseChunks([stream]);
    expect(whole).toEqual(parseWhole(stream));
    for (let cut = 0; cut <= stream.length; cut += 1) {
      expect(parseChunks([stream.slice(0, cut), stream.slice(cut)]), `cut at ${cut}`).toEqual(whole);
    }
  });
});

describe('SseParser details', () => {
  it('a CR ending one chunk and an LF starting the next are one line end', () => {
    const events = parseChunks(['data: a\r', '\ndata: b\r', '\n\r', '\n']);
    expect(events).toEqual([{ event: 'message', data: 'a\nb' }]);
  });

  it('a CR at the end of a chunk followed by a non-LF chunk ends the line there', () => {
    expect(parseChunks(['data: a\r', 'data: b\r', '\r'])).toEqual([{ event: 'message', data: 'a\nb' }]);
  });

  it('drops a leading byte-order mark, also when it is split across chunks', () => {
    const bytes = encoder.encode('\uFEFFdata: x\n\n');
    expect(parseChunks([bytes])).toEqual([{ event: 'message', data: 'x' }]);
    expect(parseChunks([bytes.subarray(0, 1), bytes.subarray(1, 2), bytes.subarray(2)])).toEqual([
      { event: 'message', data: 'x' },
    ]);
    expect(parseChunks(['\uFEFFdata: x\n\n'])).toEqual([{ event: 'message', data: 'x' }]);
  });

  it('drops only one byte-order mark, and none later in the stream', () => {
    expect(parseChunks(['\uFEFF\uFEFFdata: x\n\n'])).toEqual([]); // the field name is "\uFEFFdata": unknown
    expect(parseChunks(['data: a\n\n', '\uFEFFdata: b\n\n'])).toEqual([{ event: 'message', data: 'a' }]);
  });

  it('dispatches the pending event at end of body without a final blank line', () => {
    expect(parseWhole('data: a\n\ndata: b\n')).toEqual([
      { event: 'message', data: 'a' },
      { event: 'message', data: 'b' },
    ]);
  });

  it('dispatches at end of body even when the last line has no line end', () => {
    expect(parseWhole('event: done\ndata: {"ok":true}')).toEqual([{ event: 'done', data: '{"ok":true}' }]);
  });

  it('a blank line with an empty data buffer dispatches nothing and resets the event type', () => {
    expect(parseWhole('event: a\n\ndata: x\n\n')).toEqual([{ event: 'message', data: 'x' }]);
    expect(parseWhole('id: 5\nretry: 10\n\n')).toEqual([]);
  });

  it('an empty data line is data: it dispatches an event with empty data', () => {
    expect(parseWhole('data:\n\n')).toEqual([{ event: 'message', data: '' }]);
    expect(parseWhole('data\n\n')).toEqual([{ event: 'message', data: '' }]);
  });

  it('an empty event field means "message"', () => {
    expect(parseWhole('event:\ndata: x\n\n')).toEqual([{ event: 'message', data: 'x' }]);
  });

  it('removes only one space after the colon, and none from lines that start with a tab', () => {
    expect(parseWhole('data:   x \n\ndata:\ty\n\n')).toEqual([
      { event: 'message', data: '  x ' },
      { event: 'message', data: '\ty' },
    ]);
  });

  it('ignores unknown fields and field names with different case', () => {
    expect(parseWhole('foo: bar\nData: no\nEVENT: no\ndata: yes\n\n')).toEqual([{ event: 'message', data: 'yes' }]);
  });

  it('keeps the last id seen, across events, and ignores an id containing NUL', () => {
    expect(parseWhole('id: 1\ndata: a\n\ndata: b\n\nid: x\0y\ndata: c\n\nid: 2\nid: 3\ndata: d\n\n')).toEqual([
      { event: 'message', data: 'a', id: '1' },
      { event: 'message', data: 'b', id: '1' },
      { event: 'message', data: 'c', id: '1' },
      { event: 'message', data: 'd', id: '3' },
    ]);
  });

  it('an empty id field clears the last id', () => {
    expect(parseWhole('id: 1\ndata: a\n\nid\ndata: b\n\n')).toEqual([
      { event: 'message', data: 'a', id: '1' },
      { event: 'message', data: 'b' },
    ]);
  });

  it.each([
    { line: 'retry: 3000', retry: 3000 },
    { line: 'retry:0', retry: 0 },
    { line: 'retry: 30s', retry: undefined },
    { line: 'retry: -1', retry: undefined },
    { line: 'retry: 1.5', retry: undefined },
    { line: 'retry: ', retry: undefined },
    { line: 'retry: ３', retry: undefined },
  ])('retry accepts ASCII digits only: "$line"', ({ line, retry }) => {
    const [event] = parseWhole(`${line}\ndata: x\n\n`);
    expect(event?.retry).toBe(retry);
  });

  it('an invalid retry keeps the previous valid value', () => {
    expect(parseWhole('retry: 100\ndata: a\n\nretry: x\ndata: b\n\n').map((e) => e.retry)).toEqual([100, 100]);
  });

  it('replaces an invalid UTF-8 sequence and a character truncated at end of body', () => {
    const bytes = new Uint8Array([...encoder.encode('data: a'), 0xff, ...encoder.encode('\ndata: '), 0xf0, 0x9f]);
    expect(parseChunks([bytes])).toEqual([{ event: 'message', data: 'a\uFFFD\n\uFFFD' }]);
  });

  it('end() does not repeat events and the parser holds nothing afterwards', () => {
    const parser = new SseParser();
    expect(parser.push('data: a')).toEqual([]);
    expect(parser.end()).toEqual([{ event: 'message', data: 'a' }]);
    expect(parser.end()).toEqual([]);
  });

  it('handles a long line delivered in many small chunks', () => {
    const payload = 'x'.repeat(200_000);
    const stream = `data: ${payload}\n\n`;
    const chunks: string[] = [];
    for (let i = 0; i < stream.length; i += 7) chunks.push(stream.slice(i, i + 7));
    expect(parseChunks(chunks)).toEqual([{ event: 'message', data: payload }]);
  });

  it('parses many events in one chunk', () => {
    const count = 100_000;
    const stream = Array.from({ length: count }, (_, i) => `id: ${i}\ndata: {"t":${i}}\n\n`).join('');
    const events = parseChunks([encoder.encode(stream)]);
    expect(events).toHaveLength(count);
    expect(events[count - 1]).toEqual({ event: 'message', data: `{"t":${count - 1}}`, id: String(count - 1) });
  });
});

describe('parseSse', () => {
  async function* body(chunks: Array<Uint8Array | string>): AsyncGenerator<Uint8Array | string> {
    for (const chunk of chunks) yield chunk;
  }

  it('yields the events of an async body, including the one pending at end of body', async () => {
    const events: SseEvent[] = [];
    for await (const event of parseSse(body([encoder.encode('data: a\n'), '\ndata: é', encoder.encode('\r')]))) {
      events.push(event);
    }
    expect(events).toEqual([
      { event: 'message', data: 'a' },
      { event: 'message', data: 'é' },
    ]);
  });

  it('mixes byte and string chunks in order, even with a character split before a string chunk', async () => {
    const bytes = encoder.encode('data: é');
    const events: SseEvent[] = [];
    for await (const event of parseSse(body([bytes.subarray(0, bytes.length - 1), 'x\n\n']))) events.push(event);
    expect(events).toEqual([{ event: 'message', data: '\uFFFDx' }]);
  });

  it('stops reading the body when the consumer stops early', async () => {
    let finished = false;
    async function* endless(): AsyncGenerator<string> {
      try {
        for (let i = 0; ; i += 1) yield `data: ${i}\n\n`;
      } finally {
        finished = true;
      }
    }
    for await (const event of parseSse(endless())) {
      if (event.data === '3') break;
    }
    expect(finished).toBe(true);
  });
});

describe('size limit', () => {
  it.each([
    { what: 'a line with no end, across chunks', chunks: ['data: ', 'x'.repeat(40), 'x'.repeat(40)] },
    { what: 'a whole line in one chunk', chunks: [`data: ${'x'.repeat(100)}\n\n`] },
    { what: 'a line completed in a later chunk', chunks: ['data: ' + 'x'.repeat(60), 'x'.repeat(60) + '\n\n'] },
    {
      what: 'an event of many short data lines',
      chunks: [Array.from({ length: 20 }, () => 'data: 0123456789\n').join('')],
    },
  ])('$what longer than the limit throws SseLimitError', ({ chunks }) => {
    const parser = new SseParser({ maxLength: 64 });
    expect(() => {
      for (const chunk of chunks) parser.push(chunk);
      parser.end();
    }).toThrow(SseLimitError);
  });

  it('events completed before the oversized line in the same chunk are returned; the next call throws', () => {
    const parser = new SseParser({ maxLength: 64 });
    expect(parser.push(`data: a\n\ndata: ${'x'.repeat(100)}`)).toEqual([{ event: 'message', data: 'a' }]);
    expect(() => parser.push('data: b\n\n')).toThrow(SseLimitError);
    expect(() => parser.end()).toThrow(SseLimitError);
  });

  it('lines and events up to the limit are fine', () => {
    const parser = new SseParser({ maxLength: 64 });
    const line = `data: ${'y'.repeat(58)}`;
    expect(line).toHaveLength(64);
    const events = [
      ...parser.push(`${line}\n\n`),
      ...parser.push(line.slice(0, 30)),
      ...parser.push(`${line.slice(30)}\n\n`),
      ...parser.end(),
    ];
    expect(events).toEqual([
      { event: 'message', data: 'y'.repeat(58) },
      { event: 'message', data: 'y'.repeat(58) },
    ]);
  });

  it('the default limit is 16 Mi characters, and the message says so', () => {
    expect(MAX_SSE_LINE_LENGTH).toBe(16 * 1024 * 1024);
    const parser = new SseParser();
    const mebi = 'z'.repeat(1024 * 1024);
    parser.push('data: ');
    let thrown: unknown;
    try {
      for (let i = 0; i < 17; i += 1) parser.push(mebi);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SseLimitError);
    expect((thrown as Error).message).toBe('the service sent a line longer than 16 Mi characters without a line break');
  });

  it('parseSse hands out the events before the oversized line, then throws and releases the body', async () => {
    let released = false;
    async function* body(): AsyncGenerator<string> {
      try {
        yield 'data: first\n\n';
        for (;;) yield 'x'.repeat(50);
      } finally {
        released = true;
      }
    }
    const seen: string[] = [];
    let thrown: unknown;
    try {
      for await (const event of parseSse(body(), { maxLength: 200 })) seen.push(event.data);
    } catch (error) {
      thrown = error;
    }
    expect(seen).toEqual(['first']);
    expect(thrown).toBeInstanceOf(SseLimitError);
    expect(released).toBe(true);
  });
});

describe('parseSse as an iterator', () => {
  async function* body(chunks: string[]): AsyncGenerator<string> {
    for (const chunk of chunks) yield chunk;
  }

  it('hands out every event of a chunk with many, in order, then ends for good', async () => {
    const it = parseSse(body(['data: 1\n\ndata: 2\n\ndata: 3\n\n', 'data: 4']));
    const seen: string[] = [];
    for (let r = await it.next(); r.done !== true; r = await it.next()) seen.push(r.value.data);
    expect(seen).toEqual(['1', '2', '3', '4']);
    expect(await it.next()).toEqual({ value: undefined, done: true });
  });

  it('return() drops what is buffered and ends the iteration', async () => {
    const it = parseSse(body(['data: 1\n\ndata: 2\n\n']));
    expect((await it.next()).value).toEqual({ event: 'message', data: '1' });
    expect(await it.return?.()).toEqual({ value: undefined, done: true });
    expect(await it.next()).toEqual({ value: undefined, done: true });
  });

  it('an error from the body reaches the consumer after the events before it', async () => {
    async function* failing(): AsyncGenerator<string> {
      yield 'data: a\n\n';
      throw new Error('socket closed');
    }
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const event of parseSse(failing())) seen.push(event.data);
      })(),
    ).rejects.toThrow('socket closed');
    expect(seen).toEqual(['a']);
  });
});

describe('parseSseBatches', () => {
  async function* body(chunks: Array<Uint8Array | string>): AsyncGenerator<Uint8Array | string> {
    for (const chunk of chunks) yield chunk;
  }

  it('yields the events of each chunk together, never an empty batch, and the pending one at end of body', async () => {
    const batches: string[][] = [];
    for await (const batch of parseSseBatches(
      body(['data: 1\n\ndata: 2\n\n', ': keep-alive\n', encoder.encode('data: 3\n\ndata: 4')]),
    )) {
      batches.push(batch.map((e) => e.data));
    }
    expect(batches).toEqual([['1', '2'], ['3'], ['4']]);
  });

  it('gives the same events as parseSse wherever the bytes are split', async () => {
    const text = 'id: 1\r\nevent: a\r\ndata: é漢\r\n\r\ndata: x\rdata: y\r\r: c\ndata: [DONE]\n\n';
    const bytes = encoder.encode(text);
    for (let split = 0; split <= bytes.length; split += 1) {
      const chunks = [bytes.subarray(0, split), bytes.subarray(split)];
      const single: SseEvent[] = [];
      for await (const event of parseSse(body(chunks))) single.push(event);
      const batched: SseEvent[] = [];
      for await (const batch of parseSseBatches(body(chunks))) batched.push(...batch);
      expect(batched).toEqual(single);
    }
  });

  it('releases the body when the consumer stops early, and when the line limit is passed', async () => {
    let released = 0;
    async function* endless(): AsyncGenerator<string> {
      try {
        for (let i = 0; ; i += 1) yield i < 3 ? `data: ${i}\n\n` : 'x'.repeat(100);
      } finally {
        released += 1;
      }
    }
    for await (const batch of parseSseBatches(endless())) if (batch[0]?.data === '1') break;
    await expect(
      (async () => {
        for await (const batch of parseSseBatches(endless(), { maxLength: 250 })) void batch;
      })(),
    ).rejects.toThrow(SseLimitError);
    expect(released).toBe(2);
  });
});
