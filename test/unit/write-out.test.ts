import { describe, expect, it } from 'vitest';
import { writeOut } from '../../src/cli/launch/write-out.js';

/** A descriptor that takes `takes[i]` bytes on the i-th write, or throws the code given there. */
function descriptor(takes: Array<number | string>) {
  const got: number[] = [];
  let i = 0;
  const write = (fd: number, buffer: Uint8Array, offset: number) => {
    expect(fd).toBe(1);
    const step = takes[i++];
    if (typeof step === 'string') throw Object.assign(new Error(step), { code: step });
    const n = Math.min(step ?? buffer.length - offset, buffer.length - offset);
    got.push(...buffer.subarray(offset, offset + n));
    return n;
  };
  return { write, got };
}

/** A stand-in for process.stdout: what it was handed, and whether it was made at all. */
function stream() {
  const chunks: Uint8Array[] = [];
  let made = 0;
  const open = () => {
    made++;
    return { write: (chunk: Uint8Array) => chunks.push(Buffer.from(chunk)) > 0 } as unknown as NodeJS.WritableStream;
  };
  return { open, chunks, made: () => made };
}

const bytes = Buffer.from('Usage: textgen … [options]\n'.repeat(50));

describe('writeOut (help pages straight to fd 1)', () => {
  it('writes everything to the descriptor and never makes the stream', () => {
    const d = descriptor([]);
    const s = stream();
    expect(writeOut(bytes, { write: d.write, stream: s.open })).toBe(true);
    expect(Buffer.from(d.got)).toEqual(bytes);
    expect(s.made()).toBe(0);
  });

  it('follows partial writes with the rest, byte for byte', () => {
    const d = descriptor([1, 7, 0, 100, 3]);
    const s = stream();
    expect(writeOut(bytes, { write: d.write, stream: s.open })).toBe(true);
    expect(Buffer.from(d.got)).toEqual(bytes);
    expect(s.made()).toBe(0);
  });

  it.each(['EAGAIN', 'EPIPE', 'ENOSPC'])('%s after part of it: the stream gets exactly the rest, once', (code) => {
    const d = descriptor([10, 5, code]);
    const s = stream();
    expect(writeOut(bytes, { write: d.write, stream: s.open })).toBe(false);
    expect(s.made()).toBe(1);
    expect(Buffer.concat([Buffer.from(d.got), ...s.chunks])).toEqual(bytes);
    expect(s.chunks).toHaveLength(1);
  });

  it('an error on the first write hands the whole answer to the stream', () => {
    const d = descriptor(['EAGAIN']);
    const s = stream();
    writeOut(bytes, { write: d.write, stream: s.open });
    expect(d.got).toEqual([]);
    expect(Buffer.concat(s.chunks)).toEqual(bytes);
  });
});
