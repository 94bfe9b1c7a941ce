import { afterAll, describe, expect, it } from 'vitest';
import { startServer } from '../../src/emulator/core/index.js';
import { makeHome } from '../helpers/run-cli.js';
import { runOnTerminal } from '../helpers/pty.js';

/**
 * Runs the binary under a pseudo-terminal (util-linux `script`), so stdin, stdout and stderr are TTYs
 * as for a person at a shell. `script` merges the streams, so these tests look at the combined screen.
 */
const home = makeHome();
afterAll(() => home.cleanup());

const onTerminal = (args: string[], env: Record<string, string> = {}) => runOnTerminal(args, { ...home.env, ...env });

const GEN = ['--profile', 'local', 'deployment', 'text-generate', '--id-or-name', 'demo', '--input', 'Hello'];

describe('on a terminal', () => {
  it('prints the text and a coloured warning', async () => {
    const r = await onTerminal(GEN);
    expect(r.exitCode).toBe(0);
    expect(r.screen).toContain('\u001b[33mwarning:\u001b[39m [unspecified_max_token]');
    expect(r.screen.replace(/\u001b\[[0-9;]*m/g, '').trim().length).toBeGreaterThan(40);
  });

  it.each([
    ['--no-color', [...GEN, '--no-color'], {}],
    ['NO_COLOR', GEN, { NO_COLOR: '1' }],
  ])('%s turns colour off', async (_n, args, env) => {
    const r = await onTerminal(args, env);
    expect(r.exitCode).toBe(0);
    // Cursor control for the spinner may remain; colour codes (SGR) must not.
    expect(r.screen).not.toMatch(/\u001b\[[0-9;]*m/);
    expect(r.screen).toMatch(/(^|\u001b\[[?0-9;]*[A-Za-z])warning: \[unspecified_max_token\]/m);
  });

  it('with --no-interactive a missing value is an immediate usage error, not a wait on the keyboard', async () => {
    const r = await onTerminal([
      '--profile',
      'local',
      '--no-interactive',
      'deployment',
      'text-generate',
      '--id-or-name',
      'demo',
      '--no-color',
    ]);
    expect(r.exitCode).toBe(2);
    expect(r.screen).toMatch(/missing required option: --input/);
  });

  it('shows a spinner with the elapsed time while it waits, then clears it', async () => {
    const slow = await startServer({ tokenDelayMs: 40 });
    try {
      const r = await onTerminal([
        '--url',
        slow.url,
        'deployment',
        'text-generate',
        '--id-or-name',
        'demo',
        '--input',
        'Hello',
        '--parameters-max-new-tokens',
        '15',
      ]);
      expect(r.exitCode).toBe(0);
      expect(r.screen).toMatch(/waiting for watsonx\.ai… \d+\.\d s/);
      // The line is cleared before the text is printed.
      expect(r.screen).toMatch(/\u001b\[0K(\u001b\[\?25h)?\s*\S/);
    } finally {
      await slow.close();
    }
  });

  it('streams the text to the screen', async () => {
    const r = await onTerminal([
      '--profile',
      'local',
      'deployment',
      'text-generate',
      '--id-or-name',
      'demo',
      '--input',
      'Once upon a time',
      '--parameters-decoding-method',
      'greedy',
      '--stream',
      '-q',
    ]);
    expect(r.exitCode).toBe(0);
    expect(r.screen.trim().length).toBeGreaterThan(40);
    expect(r.screen).not.toMatch(/warning|waiting/);
  });
});
