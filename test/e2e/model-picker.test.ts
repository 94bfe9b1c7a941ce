import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/emulator/core/index.js';
import { runOnTerminal, stripEscapes } from '../helpers/pty.js';
import { makeHome } from '../helpers/run-cli.js';

/**
 * The model picker on a terminal (issue 23, item 4): it offers only the models whose functions fit the command, so
 * the one pre-selected can do the task, and chat and embed ask for a missing model as complete does. The profile is
 * ad hoc (no defaults.model) against the embedded server's watsonx catalogue, which lists a rerank model first.
 */
const home = makeHome();
let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server.close();
  home.cleanup();
});

const CTRL_C = '\u0003';
const PTY = { retry: 2 };

async function picker(command: string[]): Promise<{ exitCode: number | undefined; screen: string; selected: string }> {
  const r = await runOnTerminal(
    ['--provider', 'watsonx', '--url', server.url, '--token', 't', ...command],
    { NO_COLOR: '1', ...home.env },
    { steps: [{ waitFor: /❯ \S+/, keys: CTRL_C }], cols: 120, rows: 40 },
  );
  const screen = stripEscapes(r.screen);
  return { exitCode: r.exitCode, screen, selected: /❯ (\S+)/.exec(screen)?.[1] ?? '' };
}

describe('the model picker offers the models that can do the task', PTY, () => {
  it('complete: no rerank or embedding model, and the first one generates text', async () => {
    const r = await picker(['complete', '--max-tokens', '3']);
    expect(r.screen).toContain('Model:');
    expect(r.screen).not.toContain('cross-encoder/ms-marco-minilm-l-12-v2');
    expect(r.screen).not.toMatch(/slate-\d+m-english-rtrvr/);
    expect(r.selected).toMatch(/granite|llama|mistral|gpt|mixtral|codellama|flan|elyza|jais|allam|deepseek|qwen|phi/i);
    expect(r.exitCode).toBe(130);
  });

  it('chat asks for a missing model, from the chat models', async () => {
    const r = await picker(['chat', 'Hello']);
    expect(r.screen).toContain('Model:');
    expect(r.screen).not.toContain('cross-encoder/ms-marco-minilm-l-12-v2');
    expect(r.screen).not.toContain('missing required option');
    expect(r.exitCode).toBe(130);
  });

  it('embed asks for a missing model, from the embedding models', async () => {
    const r = await picker(['embed', 'What is a river?']);
    expect(r.screen).toContain('Model:');
    expect(r.selected).toMatch(/rtrvr|e5|embed|minilm/i);
    expect(r.screen).not.toContain('ibm/granite-4-h-small');
    expect(r.exitCode).toBe(130);
  });
});
