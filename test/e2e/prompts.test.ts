import { afterAll, describe, expect, it } from 'vitest';
import { runOnTerminal, stripEscapes, type TerminalStep } from '../helpers/pty.js';
import { makeHome, runBin } from '../helpers/run-cli.js';

/**
 * Prompt flows on a pseudo-terminal (test/helpers/pty.ts): each answer is typed once its question is on the screen,
 * so the test waits for the event, never for a fixed time.
 */
const home = makeHome();
afterAll(() => home.cleanup());

async function onTerminal(
  args: string[],
  steps: TerminalStep[],
  env: Record<string, string> = {},
): Promise<{ exitCode: number | undefined; screen: string }> {
  const r = await runOnTerminal(args, { NO_COLOR: '1', ...home.env, ...env }, { steps, cols: 120, rows: 40 });
  return { exitCode: r.exitCode, screen: stripEscapes(r.screen) };
}

const ENTER = '\r';
const CTRL_C = '\u0003';
const CTRL_D = '\u0004';

// Keystrokes go through a real pty while the whole suite loads both cores: a key can, rarely, reach the program
// between two prompts. A retry keeps CI honest about real failures (the assertions are unchanged) without that noise.
const PTY = { retry: 2 };

describe('asking for what is missing on a terminal', PTY, () => {
  it('asks for the deployment and the prompt, then generates', async () => {
    const r = await onTerminal(
      ['--profile', 'local', 'deployment', 'text-generate', '--parameters-max-new-tokens', '5'],
      [
        { waitFor: 'demo_serving', keys: ENTER }, // the first listed deployment, once the list is drawn
        { waitFor: 'end with an empty line', keys: '' },
        { waitFor: '> ', keys: `Hello there${ENTER}` },
        { waitFor: '> ', keys: ENTER },
      ],
    );
    expect(r.screen).toContain('✔ Deployment (id or serving name): demo_serving');
    expect(r.exitCode).toBe(0);
  });

  it('asks for the model as text when the provider cannot list models', async () => {
    const r = await onTerminal(
      ['--provider', 'watsonx', '--url', 'http://127.0.0.1:9', '--token', 't', '--retries', '0', 'complete'],
      [
        { waitFor: 'Model:', keys: `my-model${ENTER}` },
        { waitFor: 'end with an empty line', keys: CTRL_C },
      ],
    );
    expect(r.screen).toContain('cannot list models');
    expect(r.screen).toContain('✔ Model: my-model');
    expect(r.exitCode).toBe(130);
  });

  it('ends the multi-line prompt on Ctrl-D', async () => {
    // Each line is typed at its own "> " prompt, as a person would, once the terminal is in raw mode.
    const r = await onTerminal(
      ['--profile', 'local', 'complete', '--max-tokens', '5'],
      [
        { waitFor: '> ', keys: `line one${ENTER}` },
        { waitFor: '> ', keys: `line two${ENTER}` },
        { waitFor: '> ', keys: CTRL_D },
      ],
    );
    expect(r.exitCode).toBe(0);
  });

  it.each([
    ['the deployment question', ['--profile', 'local', 'deployment', 'text-generate', '--input', 'Hi'], 'Deployment'],
    ['the multi-line prompt', ['--profile', 'local', 'complete'], 'end with an empty line'],
    ['a profiles add question', ['profiles', 'add'], 'Profile name'],
  ])('Ctrl-C at %s exits 130 without a stack trace', async (_name, args, question) => {
    const r = await onTerminal(args, [{ waitFor: question, keys: CTRL_C }]);
    expect(r.exitCode).toBe(130);
    expect(r.screen).not.toMatch(/\n\s+at /);
    expect(r.screen).not.toContain('ExitPromptError');
  });

  it('profiles add asks for every field, masks the secret, and saves after a failed check only when told to', async () => {
    const env = { XDG_CONFIG_HOME: `${home.dir}/add-flow` };
    const r = await onTerminal(
      ['profiles', 'add', '--retries', '0', '--timeout', '2000'],
      [
        { waitFor: 'Profile name', keys: `aa${ENTER}` },
        { waitFor: 'Provider', keys: `\u001b[B\u001b[B\u001b[B${ENTER}` }, // aleph-alpha, fourth in the list
        { waitFor: 'Base URL', keys: `http://127.0.0.1:9${ENTER}` },
        { waitFor: 'Authentication', keys: ENTER }, // bearer
        { waitFor: 'Where is the secret kept', keys: `\u001b[B${ENTER}` }, // in the user file
        { waitFor: 'Token', keys: `sekret-value${ENTER}` },
        { waitFor: 'Save the profile anyway', keys: `y${ENTER}` },
      ],
      env,
    );
    expect(r.exitCode).toBe(0);
    expect(r.screen).not.toContain('sekret-value');
    expect(r.screen).toContain('connection test failed');
    const shown = await runBin(['profiles', 'show', 'aa', '-o', 'json'], { env: { ...home.env, ...env } });
    expect(JSON.parse(shown.stdout)).toMatchObject({
      name: 'aa',
      provider: 'aleph-alpha',
      url: 'http://127.0.0.1:9',
      auth: { type: 'bearer', token: '***' },
    });
  });
});

describe('without a terminal nothing is asked', () => {
  it.each([
    [
      'CI set, stdin closed',
      ['--profile', 'local', 'deployment', 'text-generate'],
      /missing required options: --id-or-name, --input/,
    ],
    ['complete without a prompt', ['--profile', 'local', 'complete'], /missing required option: PROMPT/],
    ['profiles add without flags', ['profiles', 'add'], /missing required arguments: NAME, --provider, --url/],
  ])('%s is a usage error listing what is missing', async (_name, args, message) => {
    const r = await runBin(args, { env: home.env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toContain('?');
  });
});

describe('no profile at all', PTY, () => {
  it('offers to create one, saves it as the default, then runs the command with it', async () => {
    const { startServer } = await import('../../src/emulator/core/index.js');
    const { readFileSync, statSync } = await import('node:fs');
    const { join } = await import('node:path');
    const server = await startServer({ requestLog: { max: 1000 } });
    const fresh = makeHome();
    try {
      const DOWN = '\u001b[B';
      const r = await onTerminal(
        ['deployment', 'text-generate', '--id-or-name', 'demo', '--input', 'Hello', '--parameters-max-new-tokens', '4'],
        [
          { waitFor: 'No profile is configured', keys: ENTER },
          { waitFor: 'Profile name:', keys: `mine${ENTER}` },
          { waitFor: 'Provider:', keys: ENTER }, // watsonx, the first
          { waitFor: 'Base URL:', keys: `${server.url}${ENTER}` },
          { waitFor: 'Authentication:', keys: `${DOWN}${DOWN}${DOWN}${DOWN}${ENTER}` }, // none, the last
        ],
        fresh.env,
      );
      expect(r.exitCode).toBe(0);
      expect(r.screen).toMatch(/saved profile "mine"/);
      const file = join(fresh.dir, 'config', 'textgen', 'config.yaml');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(readFileSync(file, 'utf8')).toMatch(/default_profile: mine/);
      expect(server.requests.some((q) => q.path === '/ml/v1/deployments/demo/text/generation')).toBe(true);
    } finally {
      fresh.cleanup();
      await server.close();
    }
  });

  it('without a terminal it is the usage error, no question', async () => {
    const fresh = makeHome();
    try {
      const r = await runBin(['deployment', 'text-generate', '--id-or-name', 'demo', '--input', 'Hi'], {
        env: fresh.env,
      });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(/no profile selected/);
    } finally {
      fresh.cleanup();
    }
  });
});
