import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createShapeCachingParse } from '../../profiles/common/json-events.js';

/** What JSON.parse gives, or the fact that it throws. */
function reference(data: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(data) };
  } catch {
    return { ok: false };
  }
}

function expectSameAsJsonParse(parse: (data: string) => unknown, data: string): void {
  const want = reference(data);
  if (want.ok) expect(parse(data)).toEqual(want.value);
  else expect(() => parse(data)).toThrow();
}

const PATH = ['choices', 0, 'text'] as const;

/** An Azure-like event whose text sits at PATH, written as `literal` (a JSON string token, or anything, raw). */
function azureEvent(literal: string, opts: { finish?: string | null; model?: string; spaced?: boolean } = {}): string {
  const sep = opts.spaced ? ': ' : ':';
  const comma = opts.spaced ? ', ' : ',';
  const finish = JSON.stringify(opts.finish ?? null);
  return (
    `{"id"${sep}"cmpl-1"${comma}"object"${sep}"text_completion"${comma}"created"${sep}1764460800${comma}"model"${sep}${JSON.stringify(opts.model ?? 'demo')}` +
    `${comma}"choices"${sep}[{"text"${sep}${literal}${comma}"index"${sep}0${comma}"logprobs"${sep}null${comma}"finish_reason"${sep}${finish}}]}`
  );
}

/** `text` as a JSON string token, each character written plainly or escaped at random (\uXXXX, \n, \/ …). */
const escapedLiteral = fc
  .tuple(fc.string({ unit: 'binary', maxLength: 12 }), fc.array(fc.nat(3), { minLength: 12, maxLength: 12 }))
  .map(([text, how]) => {
    let out = '"';
    [...text].forEach((ch, i) => {
      const plain = JSON.stringify(ch).slice(1, -1);
      const code = ch.codePointAt(0) as number;
      const mode = how[i % how.length] as number;
      if (mode === 1 && code < 0x10000) out += `\\u${code.toString(16).padStart(4, '0')}`;
      else if (mode === 2 && ch === '/') out += '\\/';
      else out += plain;
    });
    return `${out}"`;
  });

/** Raw text in the literal's place: often not one string token (quotes, backslashes, structure), sometimes not JSON at all. */
const hostileMiddle = fc.string({
  unit: fc.constantFrom('"', '\\', ',', ':', '{', '}', '[', ']', 'a', ' ', 'u', '0', '\n', 'text'),
  maxLength: 10,
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('createShapeCachingParse gives exactly what JSON.parse gives', () => {
  it('for a run of events that differ in the text, written with any escapes', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(escapedLiteral, fc.boolean(), fc.boolean()), { minLength: 1, maxLength: 30 }),
        fc.boolean(),
        (events, spaced) => {
          const parse = createShapeCachingParse(PATH);
          for (const [literal, last, otherModel] of events) {
            expectSameAsJsonParse(
              parse,
              azureEvent(literal, { spaced, finish: last ? 'length' : null, model: otherModel ? 'other' : 'demo' }),
            );
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('for raw text that is not a single string token where the text was', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(escapedLiteral, hostileMiddle), { minLength: 2, maxLength: 20 }), (middles) => {
        const parse = createShapeCachingParse(PATH);
        for (const middle of middles) expectSameAsJsonParse(parse, azureEvent(middle));
      }),
      { numRuns: 500 },
    );
  });

  it.each([
    {
      what: 'the first "text" key is a nested one, not the one on the path',
      events: [
        '{"meta":{"text":"x"},"choices":[{"text":"a"}]}',
        '{"meta":{"text":"y"},"choices":[{"text":"a"}]}',
        '{"meta":{"text":"x"},"choices":[{"text":"b"}]}',
      ],
    },
    {
      what: 'a duplicate key (the last one wins)',
      events: [
        '{"choices":[{"text":"a","text":"b"}]}',
        '{"choices":[{"text":"c","text":"b"}]}',
        '{"choices":[{"text":"c","text":"d"}]}',
      ],
    },
    {
      what: 'a quote inside the literal that opens a second key',
      events: [
        '{"choices":[{"text":"a","n":1}]}',
        '{"choices":[{"text":"a","text":"z","n":1}]}',
        '{"choices":[{"text":"","n":1}]}',
      ],
    },
    {
      what: 'the text is not a string',
      events: [
        '{"choices":[{"text":1}]}',
        '{"choices":[{"text":"1"}]}',
        '{"choices":[{"text":null}]}',
        '{"choices":[{"text":"x"}]}',
      ],
    },
    {
      what: 'a control character or a bad escape in the literal',
      events: [
        '{"choices":[{"text":"a"}]}',
        '{"choices":[{"text":"a\tb"}]}',
        '{"choices":[{"text":"\\x"}]}',
        '{"choices":[{"text":"\\u12"}]}',
        '{"choices":[{"text":"ok"}]}',
      ],
    },
    {
      what: 'an own __proto__ key is kept as data',
      events: ['{"__proto__":{"p":1},"choices":[{"text":"a"}]}', '{"__proto__":{"p":1},"choices":[{"text":"b"}]}'],
    },
    {
      what: 'events shorter than the remembered shape',
      events: ['{"choices":[{"text":"abc"}]}', '{}', '"x"', '{"choices":[{"text":""}]}'],
    },
  ])('$what', ({ events }) => {
    const parse = createShapeCachingParse(PATH);
    for (const data of events) expectSameAsJsonParse(parse, data);
  });

  it('parses a whole event only when its shape changes', () => {
    const spy = vi.spyOn(JSON, 'parse');
    const parse = createShapeCachingParse(PATH);
    for (const word of ['a', 'b', 'c', 'd']) parse(azureEvent(JSON.stringify(word)));
    const fullAfterFour = spy.mock.calls.filter(([text]) => String(text).startsWith('{"id"')).length;
    parse(azureEvent('"e"', { finish: 'length' }));
    const fullAfterLast = spy.mock.calls.filter(([text]) => String(text).startsWith('{"id"')).length;
    // The first event and the check of where its text sits; then none until the shape changes.
    expect(fullAfterFour).toBe(2);
    expect(fullAfterLast).toBeGreaterThan(fullAfterFour);
  });

  it('bodies share nothing that differs: each event keeps its own text', () => {
    const parse = createShapeCachingParse(PATH);
    const bodies = ['"a"', '"b"', '"c"'].map((literal) => parse(azureEvent(literal))) as Array<{
      choices: Array<{ text: string }>;
    }>;
    expect(bodies.map((b) => b.choices[0]?.text)).toEqual(['a', 'b', 'c']);
  });

  it('works along a one-step path (Aleph Alpha stream_chunk)', () => {
    const parse = createShapeCachingParse(['completion']);
    for (const text of [' Hel', 'lo', ' wörld', '"quoted"', '']) {
      expectSameAsJsonParse(parse, `{"type":"stream_chunk","index":0,"completion":${JSON.stringify(text)}}`);
    }
  });
});
