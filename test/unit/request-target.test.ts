import { describe, expect, test } from 'vitest';
import { requestTarget } from '../../src/emulator/core/request-target.js';

describe('requestTarget: the path and query URL gives, plain targets split by hand', () => {
  test.each([
    '/',
    '/openai/deployments/demo/completions?api-version=2024-10-21',
    '/ml/v1/text/generation?version=2023-05-29',
    '/v1/completions',
    '/a?',
    '/a?x',
    '/a?x=1&x=2&y=&&z=3',
    '/a?x=1=2',
    '/a/b.c/d~e_f-g',
    '/a/./b',
    '/a/../b',
    '/a/.',
    '/.well-known/x',
    '//evil.example/a',
    '/a%20b?q=%41+b',
    '/a?q=a+b&textgen_fault=status%3D429',
    '/a#frag',
    '/a?x=1#frag',
    '/ä?ü=ö',
    '/a\\b',
    '*',
    'http://other.example/a?x=1',
    '/a?__proto__=1&constructor=2',
  ])('%s', (target) => {
    const url = new URL(target, 'http://localhost');
    const got = requestTarget(target);
    expect(got.pathname).toBe(url.pathname);
    expect(got.query).toEqual(Object.fromEntries(url.searchParams));
    for (const name of ['x', 'y', 'q', 'api-version', 'textgen_fault', 'missing', '__proto__'])
      expect(got.first(name)).toBe(url.searchParams.get(name));
  });
});
