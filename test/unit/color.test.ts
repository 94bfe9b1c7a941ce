import { describe, expect, it } from 'vitest';
import { colorEnabled, colorLevel } from '../../src/output/color.js';
import { paint } from '../../src/output/paint.js';

describe('colorEnabled', () => {
  it.each([
    { why: 'a terminal gets colour', env: {}, isTTY: true, flag: undefined, on: true },
    { why: 'a pipe gets none', env: {}, isTTY: false, flag: undefined, on: false },
    { why: '--no-color turns it off on a terminal', env: {}, isTTY: true, flag: false, on: false },
    { why: '--no-color beats FORCE_COLOR', env: { FORCE_COLOR: '1' }, isTTY: true, flag: false, on: false },
    { why: 'flag true is the default, not a force', env: {}, isTTY: false, flag: true, on: false },
    { why: 'NO_COLOR turns it off', env: { NO_COLOR: '1' }, isTTY: true, flag: undefined, on: false },
    {
      why: 'NO_COLOR with any non-empty value turns it off',
      env: { NO_COLOR: 'false' },
      isTTY: true,
      flag: undefined,
      on: false,
    },
    { why: 'an empty NO_COLOR is ignored', env: { NO_COLOR: '' }, isTTY: true, flag: undefined, on: true },
    {
      why: 'NO_COLOR beats FORCE_COLOR',
      env: { NO_COLOR: '1', FORCE_COLOR: '1' },
      isTTY: true,
      flag: undefined,
      on: false,
    },
    {
      why: 'FORCE_COLOR turns it on without a terminal',
      env: { FORCE_COLOR: '1' },
      isTTY: false,
      flag: undefined,
      on: true,
    },
    { why: 'FORCE_COLOR=3 turns it on', env: { FORCE_COLOR: '3' }, isTTY: false, flag: undefined, on: true },
    { why: 'an empty FORCE_COLOR turns it on', env: { FORCE_COLOR: '' }, isTTY: false, flag: undefined, on: true },
    {
      why: 'FORCE_COLOR=0 turns it off on a terminal',
      env: { FORCE_COLOR: '0' },
      isTTY: true,
      flag: undefined,
      on: false,
    },
    { why: 'FORCE_COLOR=false turns it off', env: { FORCE_COLOR: 'false' }, isTTY: true, flag: undefined, on: false },
    { why: 'FORCE_COLOR=FALSE turns it off', env: { FORCE_COLOR: 'FALSE' }, isTTY: true, flag: undefined, on: false },
    {
      why: 'FORCE_COLOR beats TERM=dumb',
      env: { FORCE_COLOR: '1', TERM: 'dumb' },
      isTTY: true,
      flag: undefined,
      on: true,
    },
    { why: 'TERM=dumb turns it off on a terminal', env: { TERM: 'dumb' }, isTTY: true, flag: undefined, on: false },
    {
      why: 'another TERM leaves it to the terminal',
      env: { TERM: 'xterm-256color' },
      isTTY: true,
      flag: undefined,
      on: true,
    },
    {
      why: 'an unset variable is not a set one',
      env: { NO_COLOR: undefined, FORCE_COLOR: undefined },
      isTTY: true,
      flag: undefined,
      on: true,
    },
  ])('$why', ({ env, isTTY, flag, on }) => {
    expect(colorEnabled({ env, isTTY, ...(flag === undefined ? {} : { flag }) })).toBe(on);
  });
});

describe('colorLevel: how many colours chalk is given', () => {
  it.each([
    { why: 'no colour is level 0', env: { NO_COLOR: '1' }, isTTY: true, level: 0 },
    { why: 'a pipe is level 0', env: {}, isTTY: false, level: 0 },
    { why: 'a colour terminal gets 256 colours', env: { TERM: 'xterm' }, isTTY: true, level: 2 },
    { why: 'COLORTERM=truecolor gets 16 million', env: { COLORTERM: 'truecolor' }, isTTY: true, level: 3 },
    { why: 'FORCE_COLOR=1 asks for the 16 basic colours', env: { FORCE_COLOR: '1' }, isTTY: false, level: 1 },
    { why: 'FORCE_COLOR=3 asks for true colour', env: { FORCE_COLOR: '3' }, isTTY: true, level: 3 },
    { why: 'FORCE_COLOR=true is on, at the default level', env: { FORCE_COLOR: 'true' }, isTTY: false, level: 2 },
  ])('$why', ({ env, isTTY, level }) => {
    expect(colorLevel({ env, isTTY })).toBe(level);
  });
});

describe('paint: chalk at the chosen level', () => {
  it('paints nothing at level 0 (and false)', () => {
    for (const p of [paint(0), paint(false)]) {
      expect(p.red('error:')).toBe('error:');
      expect(p.background('x', 153)).toBe('x');
      expect(p.foreground('x', 34)).toBe('x');
    }
  });
  it('uses the basic colours at level 1, so a 256-colour code is brought down to one of them', () => {
    expect(paint(1).red('error:')).toBe('\u001b[31merror:\u001b[39m');
    expect(paint(1).foreground('x', 196)).toMatch(/^\u001b\[9[0-7]mx\u001b\[39m$/);
  });
  it('draws the pictures in 256 colours at level 2 (and true)', () => {
    expect(paint(true).background('x', 153)).toBe('\u001b[30m\u001b[48;5;153mx\u001b[49m\u001b[39m');
    expect(paint(2).foreground('x', 34)).toBe('\u001b[38;5;34mx\u001b[39m');
  });
  it('leaves an empty string empty', () => {
    expect(paint(2).dim('')).toBe('');
    expect(paint(2).background('', 1)).toBe('');
  });
});
