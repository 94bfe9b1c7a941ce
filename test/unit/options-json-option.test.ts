import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/contract/errors.js';
import { readJsonOption } from '../../src/options/json-option.js';
import { findJsonSyntaxError, lineAndColumn } from '../../src/options/json-syntax-error.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'textgen-json-option-'));
  await writeFile(join(dir, 'params.json'), '{"top_k": 5}');
  await writeFile(join(dir, 'bom.json'), '\uFEFF{"top_k": 6}');
  await writeFile(join(dir, 'empty.json'), '');
  await writeFile(join(dir, 'blank.json'), '  \n\t\n');
  await mkdir(join(dir, 'sub'));
  await writeFile(join(dir, 'sub', 'nested.json'), '[1, 2]');
  await mkdir(join(dir, 'home', 'cfg'), { recursive: true });
  await writeFile(join(dir, 'home', 'cfg', 'p.json'), '{"home": true}');
  await mkdir(join(dir, 'adir.json'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function usageError(p: Promise<unknown>): Promise<UsageError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(UsageError);
  return e as UsageError;
}

describe('readJsonOption: where the JSON comes from', () => {
  it.each([
    ['inline JSON', '{"top_k": 5}', { top_k: 5 }],
    ['inline JSON with surrounding space', '  [1, "a"]  ', [1, 'a']],
    ['inline scalar', '42', 42],
    ['@file relative to cwd', '@params.json', { top_k: 5 }],
    ['@file in a subfolder', '@sub/nested.json', [1, 2]],
    ['@file with a BOM', '@bom.json', { top_k: 6 }],
    ['@~/ from the home directory', '@~/cfg/p.json', { home: true }],
  ])('reads %s', async (_name, value, expected) => {
    expect(await readJsonOption('--parameters', value, { cwd: dir, homeDir: join(dir, 'home') })).toEqual(expected);
  });

  it('reads an absolute @path whatever the cwd', async () => {
    expect(await readJsonOption('--parameters', `@${join(dir, 'params.json')}`, { cwd: '/' })).toEqual({ top_k: 5 });
  });

  it('reads @- from the stdin it is given', async () => {
    expect(await readJsonOption('--moderations', '@-', { cwd: dir, stdin: async () => '\uFEFF{"hap": {}}\n' })).toEqual(
      { hap: {} },
    );
  });

  it('uses the injected readFile with the resolved path', async () => {
    const seen: string[] = [];
    const readFile = async (p: string) => {
      seen.push(p);
      return '{"x": 1}';
    };
    expect(await readJsonOption('--extra', '@x.json', { cwd: '/some/where', readFile })).toEqual({ x: 1 });
    expect(seen).toEqual(['/some/where/x.json']);
  });
});

describe('readJsonOption: errors name the flag and the path', () => {
  const enoent = Object.assign(new Error('ENOENT: no such file'), { code: 'ENOENT' });
  const eacces = Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
  it.each([
    ['a missing file', '@nope.json', undefined, '--parameters: cannot read nope.json: no such file'],
    ['a directory', '@adir.json', undefined, '--parameters: cannot read adir.json: it is a directory, not a file'],
    [
      'an unreadable file',
      '@secret.json',
      async () => Promise.reject(eacces),
      '--parameters: cannot read secret.json: permission denied',
    ],
    [
      'a missing file (injected reader)',
      '@gone.json',
      async () => Promise.reject(enoent),
      '--parameters: cannot read gone.json: no such file',
    ],
    ['an empty file', '@empty.json', undefined, '--parameters: empty.json is empty'],
    ['a file of whitespace', '@blank.json', undefined, '--parameters: blank.json is empty'],
    ['"@" without a name', '@', undefined, '--parameters: missing file name after "@"'],
    ['an empty inline value', '', undefined, '--parameters: empty value'],
  ])('%s', async (_name, value, readFile, message) => {
    const e = await usageError(readJsonOption('--parameters', value, { cwd: dir, ...(readFile ? { readFile } : {}) }));
    expect(e.message).toBe(message);
    expect(e.exitCode).toBe(2);
  });

  it('says where it looked for a missing relative file', async () => {
    const e = await usageError(readJsonOption('--parameters', '@nope.json', { cwd: dir }));
    expect(e.hint).toBe(`looked for ${join(dir, 'nope.json')}`);
  });

  it('reports empty stdin', async () => {
    const e = await usageError(readJsonOption('--parameters', '@-', { cwd: dir, stdin: async () => '' }));
    expect(e.message).toBe('--parameters: stdin is empty');
  });

  it('suggests @ when an inline value looks like a file name', async () => {
    const e = await usageError(readJsonOption('--parameters', 'params.json', { cwd: dir }));
    expect(e.message).toBe('--parameters: invalid JSON at line 1, column 1: unexpected "p"');
    expect(e.hint).toBe('to read JSON from a file, write --parameters @params.json');
  });
});

// Each row: text, line, column, message. Columns count characters, not UTF-16 units.
const INVALID: Array<[string, number, number, string]> = [
  ['{"a": 1,}', 1, 9, 'unexpected "}"'],
  ['{\n  "max_new_tokens": 20,\n  "top_k": 5,}\n', 3, 14, 'unexpected "}"'],
  ['{\n  "a": 1,\n  "b": 2\n  "c": 3\n}', 4, 3, `unexpected '"'`],
  ["{'a': 1}", 1, 2, `unexpected "'"`],
  ['{"a": tru}', 1, 10, 'unexpected "}"'],
  ['{"a": greedy}', 1, 7, 'unexpected "g"'],
  ['[1, 2', 1, 6, 'unexpected end of input'],
  ['[1, 2,]', 1, 7, 'unexpected "]"'],
  ['{"a": "x\ny"}', 1, 9, 'unexpected a line break in a string'],
  ['{"a": 01}', 1, 8, 'unexpected "1"'],
  ['{"a": 1} x', 1, 10, 'unexpected "x"'],
  ['{"a": 1.}', 1, 9, 'unexpected "}"'],
  ['{"a": -}', 1, 8, 'unexpected "}"'],
  ['{"a" 1}', 1, 6, 'unexpected "1"'],
  ['{"é": 1,}', 1, 9, 'unexpected "}"'],
  ['{"😀": 1 2}', 1, 9, 'unexpected "2"'],
  ['{\r\n"a": 1,\r\n}', 3, 1, 'unexpected "}"'],
  ['{"a":\r1 2}', 2, 3, 'unexpected "2"'],
  ['{"a": "\\q"}', 1, 8, 'invalid escape "\\q"'],
  ['{"a": "\\u12G4"}', 1, 12, 'invalid \\u escape: unexpected "G"'],
  ['{"a": "abc', 1, 7, 'unterminated string'],
  ['\n\n   ', 3, 4, 'unexpected end of input'],
  ['{"a":\u00a01}', 1, 6, 'unexpected character U+00A0'],
  ['{"a": "\t"}', 1, 8, 'unexpected control character U+0009 in a string'],
];

describe('invalid JSON: line and column', () => {
  it.each(INVALID)('%j → line %i, column %i: %s', (text, line, column, message) => {
    const problem = findJsonSyntaxError(text);
    expect(problem).toBeDefined();
    expect(lineAndColumn(text, problem!.offset)).toEqual({ line, column });
    expect(problem!.message).toBe(message);
  });

  it('puts line, column and file name in the message for an @file', async () => {
    const readFile = async () => '{\n  "max_new_tokens": 20,\n  "top_k": 5,}\n';
    const e = await usageError(readJsonOption('--parameters', '@params.json', { cwd: dir, readFile }));
    expect(e.message).toBe('--parameters: invalid JSON in params.json at line 3, column 14: unexpected "}"');
    expect(e.hint).toBe('JSON does not allow a comma before "}"');
  });

  it('puts line and column in the message for inline JSON', async () => {
    const e = await usageError(readJsonOption('--moderations', '{"hap": {"input": {"enabled": true,}}}', { cwd: dir }));
    expect(e.message).toBe('--moderations: invalid JSON at line 1, column 36: unexpected "}"');
  });

  it('names stdin as the source for @-', async () => {
    const e = await usageError(readJsonOption('--extra', '@-', { cwd: dir, stdin: async () => '{\n"a" 1}' }));
    expect(e.message).toBe('--extra: invalid JSON from stdin at line 2, column 5: unexpected "1"');
  });

  it('counts lines after a BOM from the text without it', async () => {
    await writeFile(join(dir, 'bom-bad.json'), '\uFEFF{\n  "a": ,\n}');
    const e = await usageError(readJsonOption('--parameters', '@bom-bad.json', { cwd: dir }));
    expect(e.message).toBe('--parameters: invalid JSON in bom-bad.json at line 2, column 8: unexpected ","');
  });
});

describe('the JSON scanner agrees with JSON.parse', () => {
  const VALID = [
    '{"decoding_method": "greedy", "length_penalty": {"decay_factor": 2.5, "start_index": 5}, "stop_sequences": ["a\\n", "\\u00e9"], "x": [true, false, null, -0.5e+10, 0, 12.25E-3]}',
    '[]',
    '{}',
    ' "s" ',
    '[[[{"a": [{}]}]]]',
  ];
  it.each(VALID)('finds nothing wrong in %s', (text) => {
    expect(findJsonSyntaxError(text)).toBeUndefined();
  });

  it('finds an error exactly when JSON.parse throws, for every one-character edit', () => {
    const inserts = ['{', '}', '[', ']', ',', ':', '"', '\\', '0', '-', '.', 'e', 'x', ' ', '\n', "'"];
    let checked = 0;
    for (const base of VALID) {
      for (let i = 0; i <= base.length; i++) {
        const variants = [
          base.slice(0, i) + base.slice(i + 1),
          ...inserts.map((c) => base.slice(0, i) + c + base.slice(i)),
        ];
        for (const text of variants) {
          let parses = true;
          try {
            JSON.parse(text);
          } catch {
            parses = false;
          }
          const problem = findJsonSyntaxError(text);
          expect(problem === undefined, JSON.stringify(text)).toBe(parses);
          if (problem) expect(problem.offset).toBeLessThanOrEqual(text.length);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(1000);
  });

  it('handles deep nesting without recursion limits', () => {
    const deep = '['.repeat(100_000) + ']'.repeat(99_999);
    const problem = findJsonSyntaxError(deep);
    expect(problem?.message).toBe('unexpected end of input');
  });
});
