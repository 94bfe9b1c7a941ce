import { AssertionError } from 'node:assert';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

// The stand-ins scripts/bundle.mjs gives dependencies for built-ins they load at start-up but rarely use.
const require = createRequire(import.meta.url);
const undiciAssert = require('../../scripts/undici-assert.cjs') as (value: unknown, message?: string) => void;

describe("undici's assert stand-in", () => {
  it('passes a truthy value and fails a falsy one with Node’s own AssertionError', () => {
    expect(() => undiciAssert(1)).not.toThrow();
    expect(() => undiciAssert(true, 'fine')).not.toThrow();
    expect(() => undiciAssert(0, 'invariant broken')).toThrow(AssertionError);
    expect(() => undiciAssert(undefined, 'invariant broken')).toThrow('invariant broken');
  });
});
