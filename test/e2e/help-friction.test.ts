import { afterAll, describe, expect, it } from 'vitest';
import { runOnTerminal, stripEscapes } from '../helpers/pty.js';
import { makeHome, runBin } from '../helpers/run-cli.js';

/** What a new user trips over in help and output (issue 23, item 8), through the built CLI. */
const home = makeHome();
afterAll(() => home.cleanup());
const run = (args: string[]) => runBin(args, { env: home.env });
const widest = (text: string) => Math.max(...text.split('\n').map((l) => [...l].length));

describe('help', () => {
  it.each([['deployment', 'text-generate'], ['deployment', 'text-generate-stream'], ['complete'], ['chat']])(
    '%s %s --help fits 80 columns',
    async (...path) => {
      const r = await run([...path.filter(Boolean), '--help']);
      expect(r.exitCode).toBe(0);
      expect(widest(r.stdout)).toBeLessThanOrEqual(80);
    },
  );

  it.each([[[]], [['deployment']], [['batch']], [['profiles']]])('%j --help has examples', async (path) => {
    const r = await run([...path, '--help']);
    expect(r.stdout).toContain('\nExamples:\n  $ textgen ');
  });

  it('global options are listed once, in textgen help globals; a command points there', async () => {
    const command = await run(['complete', '--help']);
    expect(command.stdout).not.toContain('--insecure');
    expect(command.stdout).toContain('textgen help globals');
    const globals = await run(['help', 'globals']);
    expect(globals).toMatchObject({ exitCode: 0, stderr: '' });
    expect(globals.stdout).toContain('--insecure');
    expect(globals.stdout).toContain('--profile <name>');
  });

  it('serve --help says the default port', async () => {
    expect((await run(['serve', '--help'])).stdout).toMatch(/--port <port>\s+port to listen on \(default 8080/);
  });

  it('bare textgen is textgen --help: the help on stdout, exit 0', async () => {
    const bare = await run([]);
    expect(bare).toMatchObject({ exitCode: 0, stderr: '' });
    expect(bare.stdout).toBe((await run(['--help'])).stdout);
  });
});

describe('output', () => {
  it('the models table fits an 80-column terminal, and is whole when piped', async () => {
    const piped = await run(['--profile', 'local', 'models']);
    expect(piped.exitCode).toBe(0);
    expect(widest(piped.stdout)).toBeGreaterThan(100);
    const r = await runOnTerminal(['--profile', 'local', 'models'], { NO_COLOR: '1', ...home.env }, { cols: 80 });
    expect(r.exitCode).toBe(0);
    const screen = stripEscapes(r.screen).replace(/\r/g, '');
    expect(screen).toContain('ID');
    expect(widest(screen)).toBeLessThanOrEqual(80);
  });

  it('complete --echo shows the prompt before the answer in text output', async () => {
    const r = await run(['--profile', 'local', 'complete', '--echo', '--max-tokens', '4', 'An apple a day']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.startsWith('An apple a day')).toBe(true);
    expect(r.stdout.length).toBeGreaterThan('An apple a day'.length + 1);
  });
});
