import { describe, expect, it } from 'vitest';
import { colorEnabled } from '../../src/output/color.js';

describe('colorEnabled', () => {
  it.each([
    { why: 'a terminal gets colour', env: {}, isTTY: true, flag: undefined, on: true },
    { why: 'a pipe gets none', env: {}, isTTY: false, flag: undefined, on: false },
    { why: '--no-color turns it off on a terminal', env: {}, isTTY: true, flag: false, on: false },
    { why: '--no-color beats FORCE_COLOR', env: { FORCE_COLOR: '1' }, isTTY: true, flag: false, on: false },
    { why: 'flag true is the default, not a force', env: {}, isTTY: false, flag: true, on: false },
    { why: 'NO_COLOR turns it off', env: { NO_COLOR: '1' }, isTTY: true, flag: undefined, on: false },
    { why: 'NO_COLOR with any non-empty value turns it off', env: { NO_COLOR: 'false' }, isTTY: true, flag: undefined, on: false },
    { why: 'an empty NO_COLOR is ignored', env: { NO_COLOR: '' }, isTTY: true, flag: undefined, on: true },
    { why: 'NO_COLOR beats FORCE_COLOR', env: { NO_COLOR: '1', FORCE_COLOR: '1' }, isTTY: true, flag: undefined, on: false },
    { why: 'FORCE_COLOR turns it on without a terminal', env: { FORCE_COLOR: '1' }, isTTY: false, flag: undefined, on: true },
    { why: 'FORCE_COLOR=3 turns it on', env: { FORCE_COLOR: '3' }, isTTY: false, flag: undefined, on: true },
    { why: 'an empty FORCE_COLOR turns it on', env: { FORCE_COLOR: '' }, isTTY: false, flag: undefined, on: true },
    { why: 'FORCE_COLOR=0 turns it off on a terminal', env: { FORCE_COLOR: '0' }, isTTY: true, flag: undefined, on: false },
    { why: 'FORCE_COLOR=false turns it off', env: { FORCE_COLOR: 'false' }, isTTY: true, flag: undefined, on: false },
    { why: 'FORCE_COLOR=FALSE turns it off', env: { FORCE_COLOR: 'FALSE' }, isTTY: true, flag: undefined, on: false },
    { why: 'FORCE_COLOR beats TERM=dumb', env: { FORCE_COLOR: '1', TERM: 'dumb' }, isTTY: true, flag: undefined, on: true },
    { why: 'TERM=dumb turns it off on a terminal', env: { TERM: 'dumb' }, isTTY: true, flag: undefined, on: false },
    { why: 'another TERM leaves it to the terminal', env: { TERM: 'xterm-256color' }, isTTY: true, flag: undefined, on: true },
    { why: 'an unset variable is not a set one', env: { NO_COLOR: undefined, FORCE_COLOR: undefined }, isTTY: true, flag: undefined, on: true },
  ])('$why', ({ env, isTTY, flag, on }) => {
    expect(colorEnabled({ env, isTTY, ...(flag === undefined ? {} : { flag }) })).toBe(on);
  });
});
