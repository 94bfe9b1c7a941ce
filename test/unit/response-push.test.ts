import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { BodySink, HttpResponse, SseEvent } from '../../src/contract/http.js';
import { StreamError } from '../../src/contract/errors.js';
import { CallGuards } from '../../src/call/guards.js';
import { readStream } from '../../src/call/stream.js';
import { wrapResponse } from '../../src/http/response.js';
import type { TransportBody } from '../../src/http/transport.js';

const ctx = {
  failure: { service: 'demo', origin: 'http://127.0.0.1:1', timeoutMs: 0, connectTimeoutMs: 0 },
  secrets: [],
};

/** An answer whose body the test pushes by hand, as a transport's socket callback would. */
function answer(contentType = 'text/event-stream') {
  const source = new Readable({ read() {} });
  const res = wrapResponse(
    { statusCode: 200, headers: { 'content-type': contentType }, body: source as TransportBody, dump: async () => {} },
    ctx,
  );
  return { source, res };
}

/** A sink that records what it was handed. */
function recorder() {
  const got: string[] = [];
  const sink: BodySink = {
    chunk: (c) => got.push(Buffer.from(c).toString()),
    end: () => got.push('<end>'),
    fail: (e) => got.push(`<fail ${(e as Error).constructor.name}>`),
  };
  return { got, sink };
}

const turn = () => new Promise((r) => setImmediate(r));

describe('HttpResponse.push', () => {
  it('hands each chunk on in the callback that brought it, then the end once', async () => {
    const { source, res } = answer();
    const { got, sink } = recorder();
    source.push('early');
    res.push?.(sink);
    await turn();
    expect(got).toEqual(['early']);
    source.push('a');
    // No await between the push and the check: the chunk went through no promise.
    expect(got).toEqual(['early', 'a']);
    source.push('b');
    source.push(null);
    await turn();
    expect(got).toEqual(['early', 'a', 'b', '<end>']);
  });

  it('a body cut mid-answer: the chunks that came, then its failure in the reader’s words', async () => {
    const { source, res } = answer();
    const { got, sink } = recorder();
    res.push?.(sink);
    await turn();
    source.push('part');
    source.destroy(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    await turn();
    expect(got[0]).toBe('part');
    expect(got).toHaveLength(2);
    expect(got[1]).toMatch(/^<fail /);
  });

  it('stop() cuts the body, unless release() kept the connection first; the body reads only once', async () => {
    const cut = answer();
    const stop = cut.res.push?.(recorder().sink);
    await turn();
    stop?.();
    expect(cut.source.destroyed).toBe(true);
    expect(() => cut.res.push?.(recorder().sink)).toThrow(/only once/);

    const kept = answer();
    const stopKept = kept.res.push?.(recorder().sink);
    await turn();
    kept.res.release?.();
    stopKept?.();
    expect(kept.source.destroyed).toBe(false);
    kept.source.push(null);
  });
});

/** A pushing answer of the given SSE chunks, delivered at once, and whether the reader stopped it. */
function pushed(chunks: string[]): { res: HttpResponse; stopped: () => boolean } {
  let stopped = false;
  const res: HttpResponse = {
    status: 200,
    headers: { 'content-type': 'text/event-stream' },
    body: { [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error('read through push')) }) },
    text: () => Promise.reject(new Error('unused')),
    json: () => Promise.reject(new Error('unused')),
    push(sink) {
      for (const c of chunks) if (!stopped) sink.chunk(Buffer.from(c));
      if (!stopped) sink.end();
      return () => {
        stopped = true;
      };
    },
  };
  return { res, stopped: () => stopped };
}

function reading(res: HttpResponse, decode: (e: SseEvent) => ReturnType<Parameters<typeof readStream>[0]['decode']>) {
  const chunks: unknown[] = [];
  return {
    chunks,
    run: () =>
      readStream<unknown>({
        kind: 'demo',
        res,
        decode,
        secrets: [],
        guards: new CallGuards({ user: [], silenceMs: 0 }),
        stopReason: 'never',
        what: 'generation',
        onChunk: (c) => chunks.push(c),
        unfinished: () => false,
        stopped: () => {},
      }),
  };
}

const json = (e: SseEvent) =>
  e.data === '[DONE]'
    ? ({ type: 'end' } as const)
    : JSON.parse(e.data).error
      ? ({ type: 'error', message: JSON.parse(e.data).error, wireBody: e.data } as const)
      : ({ type: 'chunk', chunk: JSON.parse(e.data), wireBody: e.data } as const);

describe('readStream over a pushing body', () => {
  it('reads every event, split across chunks anyhow, up to the end marker', async () => {
    const { res, stopped } = pushed([
      'data: {"t":1}\n\ndata: {"t"',
      ':2}\n\n',
      'data: [DONE]\n\n',
      'data: {"t":3}\n\n',
    ]);
    const r = reading(res, json);
    await expect(r.run()).resolves.toBe('complete');
    expect(r.chunks).toEqual([{ t: 1 }, { t: 2 }]);
    expect(stopped()).toBe(true);
  });

  it('an error event is a stream that broke off (exit 6), and the body is stopped', async () => {
    const { res, stopped } = pushed(['data: {"t":1}\n\n', 'data: {"error":"overloaded"}\n\n', 'data: {"t":2}\n\n']);
    const r = reading(res, json);
    const failure = await r.run().catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(StreamError);
    expect((failure as Error).message).toContain('overloaded');
    expect(r.chunks).toEqual([{ t: 1 }]);
    expect(stopped()).toBe(true);
  });

  it('a decoder that throws stops the body and breaks the stream off, not the process', async () => {
    const { res, stopped } = pushed(['data: not json\n\n']);
    const r = reading(res, json);
    await expect(r.run()).rejects.toBeInstanceOf(StreamError);
    expect(stopped()).toBe(true);
  });
});
