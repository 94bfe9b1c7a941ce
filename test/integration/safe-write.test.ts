import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { PassThrough, Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createDataSink } from '../../src/output/safe-write.js';

/** A Writable that records each chunk it is handed and completes each write when told to. */
function recordingStream(options: { highWaterMark?: number; manual?: boolean } = {}) {
  const chunks: string[] = [];
  const callbacks: Array<(error?: Error | null) => void> = [];
  let onChunk: (() => void) | undefined;
  const stream = new Writable({
    highWaterMark: options.highWaterMark ?? 16 * 1024,
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, callback) {
      chunks.push(chunk.toString());
      if (options.manual) callbacks.push(callback);
      else callback();
      onChunk?.();
    },
  });
  const nextChunk = () =>
    new Promise<void>((resolve) => {
      onChunk = () => {
        onChunk = undefined;
        resolve();
      };
    });
  return { stream, chunks, callbacks, nextChunk };
}

function codeError(code: string): Error {
  return Object.assign(new Error(`write ${code}`), { code });
}

const children: Array<ReturnType<typeof spawn>> = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill();
});

describe('createDataSink', () => {
  it('delivers everything in order through a PassThrough', async () => {
    const stream = new PassThrough();
    const received: string[] = [];
    stream.on('data', (chunk: Buffer) => received.push(chunk.toString()));
    const sink = createDataSink(stream);
    const tokens = Array.from({ length: 500 }, (_, i) => `t${i} `);
    for (const [i, token] of tokens.entries()) {
      sink.raw(token);
      if (i % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    await sink.flush();
    expect(received.join('')).toBe(tokens.join(''));
    expect(sink.closed).toBe(false);
  });

  it('writes the first text of a tick at once and coalesces the rest of that tick into one chunk', async () => {
    const { stream, chunks, nextChunk } = recordingStream();
    const sink = createDataSink(stream);
    sink.raw('Hel');
    expect(chunks).toEqual(['Hel']);
    const arrived = nextChunk();
    sink.raw('lo');
    sink.raw(', world');
    expect(chunks).toEqual(['Hel']);
    await arrived;
    expect(chunks).toEqual(['Hel', 'lo, world']);
  });

  it('a later tick starts again with a write at once', async () => {
    const { stream, chunks } = recordingStream();
    const sink = createDataSink(stream);
    sink.raw('a');
    sink.raw('b');
    await new Promise((resolve) => setImmediate(resolve));
    expect(chunks).toEqual(['a', 'b']);
    await new Promise((resolve) => setImmediate(resolve));
    sink.raw('c');
    expect(chunks).toEqual(['a', 'b', 'c']);
  });

  it('holds nothing back while a long run of microtasks keeps the tick from ending, past about 16 KiB', async () => {
    const { stream, chunks } = recordingStream();
    const sink = createDataSink(stream);
    // As when parsed events are already queued: the loop below never yields to the event loop.
    for (let i = 0; i < 2_000; i += 1) {
      sink.raw('0123456789');
      await Promise.resolve();
    }
    expect(chunks[0]).toBe('0123456789');
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.slice(1, -1).every((c) => c.length >= 16 * 1024)).toBe(true);
    await sink.flush();
    expect(chunks.join('')).toBe('0123456789'.repeat(2_000));
  });

  it('hands over at once when about 16 KiB have gathered', () => {
    const { stream, chunks } = recordingStream();
    const sink = createDataSink(stream);
    sink.raw('first');
    sink.raw('a'.repeat(10_000));
    expect(chunks).toEqual(['first']);
    sink.raw('b'.repeat(7_000));
    expect(chunks).toEqual(['first', 'a'.repeat(10_000) + 'b'.repeat(7_000)]);
  });

  it('flush hands over at once and resolves when the stream has accepted everything', async () => {
    const { stream, chunks, callbacks } = recordingStream({ manual: true });
    const sink = createDataSink(stream);
    sink.raw('one');
    let flushed = false;
    const flushing = sink.flush().then(() => {
      flushed = true;
    });
    expect(chunks).toEqual(['one']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(flushed).toBe(false);
    callbacks.shift()?.();
    await flushing;
    expect(flushed).toBe(true);
  });

  it('flush with nothing written resolves', async () => {
    const { stream } = recordingStream();
    await expect(createDataSink(stream).flush()).resolves.toBeUndefined();
  });

  it('waits for drain before handing over more, and keeps the order', async () => {
    const { stream, chunks, callbacks } = recordingStream({ highWaterMark: 4, manual: true });
    const sink = createDataSink(stream);
    sink.raw('first');
    const firstFlush = sink.flush();
    expect(chunks).toEqual(['first']);
    expect(stream.writableNeedDrain).toBe(true);
    sink.raw('second');
    sink.raw('third');
    const secondFlush = sink.flush();
    // Held back until 'drain': the stream has seen only the first chunk.
    expect(chunks).toEqual(['first']);
    const drained = once(stream, 'drain');
    callbacks.shift()?.();
    await drained;
    // The first flush waits only for what was written before it, not for 'secondthird' now in flight.
    await firstFlush;
    expect(chunks).toEqual(['first', 'secondthird']);
    let secondDone = false;
    void secondFlush.then(() => {
      secondDone = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(secondDone).toBe(false);
    callbacks.shift()?.();
    await secondFlush;
    expect(sink.closed).toBe(false);
  });

  it('a reader that goes away (EPIPE) closes the sink quietly', async () => {
    const stream = new Writable({
      write(_chunk, _encoding, callback) {
        callback(codeError('EPIPE'));
      },
    });
    const sink = createDataSink(stream);
    sink.raw('lost');
    await expect(sink.flush()).resolves.toBeUndefined();
    expect(sink.closed).toBe(true);
    expect(() => sink.raw('more')).not.toThrow();
    await expect(sink.flush()).resolves.toBeUndefined();
  });

  it('drops writes after the reader went away, without touching the stream', async () => {
    let writes = 0;
    const stream = new Writable({
      write(_chunk, _encoding, callback) {
        writes += 1;
        callback(codeError('EPIPE'));
      },
    });
    const sink = createDataSink(stream);
    sink.raw('a');
    await sink.flush();
    for (let i = 0; i < 100; i += 1) sink.raw('b'.repeat(1_000));
    await sink.flush();
    expect(writes).toBe(1);
  });

  it('an EPIPE error event while a write waits for drain resolves flush', async () => {
    const { stream } = recordingStream({ highWaterMark: 1, manual: true });
    const sink = createDataSink(stream);
    sink.raw('x');
    sink.raw('y'.repeat(20_000));
    const flushing = sink.flush();
    stream.destroy(codeError('EPIPE'));
    await expect(flushing).resolves.toBeUndefined();
    expect(sink.closed).toBe(true);
  });

  it('a stream destroyed before writing counts as a reader gone', async () => {
    const { stream } = recordingStream();
    stream.destroy();
    const sink = createDataSink(stream);
    sink.raw('x');
    await expect(sink.flush()).resolves.toBeUndefined();
    expect(sink.closed).toBe(true);
  });

  it('a real pipe whose reader exited gives EPIPE and closes the sink', async () => {
    // The child reads one chunk and exits, like `head -1`.
    const child = spawn(process.execPath, ['-e', "process.stdin.once('data', () => process.exit(0))"], {
      stdio: ['pipe', 'ignore', 'inherit'],
    });
    children.push(child);
    const exited = once(child, 'exit');
    const stdin = child.stdin;
    if (stdin === null) throw new Error('no stdin pipe');
    const sink = createDataSink(stdin);
    sink.raw('first line\n');
    await sink.flush();
    await exited;
    for (let i = 0; i < 20 && !sink.closed; i += 1) {
      sink.raw('x'.repeat(64 * 1024));
      await sink.flush();
    }
    expect(sink.closed).toBe(true);
    await expect(sink.flush()).resolves.toBeUndefined();
  });

  it('any other write failure is reported by flush, not hidden', async () => {
    const failure = codeError('ENOSPC');
    const stream = new Writable({
      write(_chunk, _encoding, callback) {
        callback(failure);
      },
    });
    const sink = createDataSink(stream);
    sink.raw('data');
    await expect(sink.flush()).rejects.toBe(failure);
    expect(sink.closed).toBe(true);
    expect(() => sink.raw('more')).not.toThrow();
  });
});
