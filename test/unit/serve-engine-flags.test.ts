/** `serve`'s engine flags are checked before anything is loaded or listened on: one line, exit 2. */
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/run-cli.js';

describe('serve --engine flags', () => {
  it.each([
    [['--threads', '2'], /--threads is for --engine llama/],
    [['--engine', 'deterministic', '--model', 'm.gguf'], /--model is for --engine llama/],
    [['--engine', 'gpt'], /--engine must be deterministic or llama, got "gpt"/],
    [['--engine', 'llama'], /--engine llama needs --model FILE\.gguf/],
    [['--model', 'm.gguf', '--gpu', 'on'], /--gpu must be auto or off, got "on"/],
    [['--model', 'm.gguf', '--threads', '0'], /--threads must be a positive integer, got "0"/],
    [['--model', 'm.gguf', '--parallel', 'x'], /--parallel must be a positive integer, got "x"/],
    [['--model', 'm.gguf', '--model-name', ' '], /--model-name must not be empty/],
  ])('serve %j: exit 2', async (args, message) => {
    const r = await runInProcess(['serve', '--port', '0', ...args]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
  });
});
