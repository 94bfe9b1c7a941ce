/**
 * Every integer flag goes through one parser (src/options/integer-flag.ts): a value that is not a whole number in
 * range is one `error:` line with the wording each flag had, exit 2, nothing on stdout and nothing sent.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { makeHome, runBin } from '../helpers/run-cli.js';

const home = makeHome();
afterAll(() => home.cleanup());

describe('integer flags', () => {
  it.each<[string, string[], string]>([
    [
      '--retries, not a count',
      ['complete', '--profile', 'local', '--retries', 'abc', 'x'],
      '--retries must be a non-negative integer, got "abc"',
    ],
    [
      '--retries, too many',
      ['complete', '--profile', 'local', '--retries', '99', 'x'],
      '--retries must be an integer from 0 to 10, got "99"',
    ],
    [
      '--timeout',
      ['complete', '--profile', 'local', '--timeout', '1.5', 'x'],
      '--timeout must be a non-negative integer, got "1.5"',
    ],
    ['-n/--choices', ['complete', '-n', '0', 'x'], '-n/--choices must be an integer from 1 to 128, got "0"'],
    [
      '--logprobs N',
      ['complete', '--logprobs=x', 'x'],
      '--logprobs takes a number of alternatives from 0 to 5, got "x"',
    ],
    [
      'chat --logprobs N',
      ['chat', '--logprobs=-1', 'hi'],
      '--logprobs takes a number of alternatives from 0 to 20, got "-1"',
    ],
    [
      '--concurrency',
      ['complete', '--batch', '-', '--concurrency', '0'],
      '--concurrency must be an integer from 1 to 1024, got "0"',
    ],
    ['--page-size', ['models', '--page-size', '1e3'], '--page-size must be a positive integer, got "1e3"'],
    [
      '--max-time',
      ['complete', '--max-time', '0', 'x'],
      '--max-time must be a whole number of milliseconds from 1 to 2147483647, got "0"',
    ],
    [
      '--truncate-input-tokens',
      ['embed', '--truncate-input-tokens', '-1', 'x'],
      '--truncate-input-tokens must be an integer of 0 or more (0 = no truncation), got "-1"',
    ],
    ['--port', ['serve', '--port', 'http'], '--port must be a non-negative integer, got "http"'],
    ['--port, too high', ['serve', '--port', '70000'], '--port must be at most 65535, got 70000'],
  ])('%s', async (_name, args, message) => {
    const r = await runBin(args, { env: home.env });
    expect({ code: r.exitCode, stdout: r.stdout }).toEqual({ code: 2, stdout: '' });
    expect(r.stderr.split('\n')[0]).toBe(`error: ${message}`);
  });
});
