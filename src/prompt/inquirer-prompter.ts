/**
 * The Prompter on a terminal: @inquirer/prompts on the context's stdin, rendering on stderr so stdout stays data.
 * This module is only ever loaded lazily (from Context.prompter), and loads @inquirer/prompts itself on first use.
 *
 * Multi-line input is our own readline loop, not @inquirer's `editor`: a prompt typed at a terminal is short, and
 * an editor needs $VISUAL/$EDITOR and a temporary file; a long prompt belongs in --input-file anyway.
 */
import { Interrupted } from '../contract/errors.js';
import type { Choice, Prompter } from './prompter.js';

export interface PromptStreams {
  stdin: NodeJS.ReadableStream;
  stderr: NodeJS.WritableStream;
  signal: AbortSignal;
}

/** @inquirer's Ctrl-C (ExitPromptError) and abort (AbortPromptError) are an interruption, exit 130, no stack. */
export function asInterrupted(error: unknown): unknown {
  const name = (error as { name?: unknown } | null)?.name;
  return name === 'ExitPromptError' || name === 'AbortPromptError' ? new Interrupted() : error;
}

export function createInquirerPrompter(io: PromptStreams): Prompter {
  const context = { input: io.stdin, output: io.stderr, signal: io.signal };
  const ask = async <T>(run: (p: typeof import('@inquirer/prompts')) => Promise<T>): Promise<T> => {
    const { importEsm } = await import('../import-esm.js');
    const prompts = await importEsm<typeof import('@inquirer/prompts')>('@inquirer/prompts');
    try {
      return await run(prompts);
    } catch (e) {
      throw asInterrupted(e);
    }
  };
  return {
    text: (message, options = {}) =>
      ask((p) =>
        p.input(
          {
            message,
            ...(options.default !== undefined ? { default: options.default } : {}),
            ...(options.validate ? { validate: options.validate } : {}),
            required: true,
          },
          context,
        ),
      ),
    password: (message) =>
      ask((p) =>
        p.password({ message, mask: '*', validate: (v) => (v === '' ? 'a value is required' : true) }, context),
      ),
    select: <T extends string>(message: string, choices: readonly Choice<T>[], options: { default?: T } = {}) =>
      ask((p) =>
        p.select<T>(
          {
            message,
            choices: choices.map((c) => ({
              value: c.value,
              name: c.name ?? c.value,
              ...(c.description ? { description: c.description } : {}),
            })),
            ...(options.default !== undefined ? { default: options.default } : {}),
            pageSize: 12,
          },
          context,
        ),
      ),
    confirm: (message, options = {}) => ask((p) => p.confirm({ message, default: options.default ?? false }, context)),
    multiline: (message) => readLines(io, message),
  };
}

/** Lines until an empty line or Ctrl-D; Ctrl-C is an interruption. */
async function readLines(io: PromptStreams, message: string): Promise<string> {
  const readline = await import('node:readline');
  io.stderr.write(`? ${message} (end with an empty line or Ctrl-D)\n`);
  const rl = readline.createInterface({ input: io.stdin, output: io.stderr, terminal: true, prompt: '> ' });
  const lines: string[] = [];
  return new Promise<string>((resolve, reject) => {
    let settled = false;
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      io.signal.removeEventListener('abort', onAbort);
      rl.close();
      if (error) reject(error);
      else resolve(lines.join('\n'));
    };
    const onAbort = () => finish(new Interrupted());
    io.signal.addEventListener('abort', onAbort);
    rl.on('line', (line) => {
      if (line === '' && lines.length > 0) return finish();
      if (line !== '') lines.push(line);
      rl.prompt();
    });
    rl.on('SIGINT', () => {
      io.stderr.write('\n');
      finish(new Interrupted());
    });
    rl.on('close', () => finish());
    // Input typed ahead while the terminal was still in line mode may already have ended stdin (Ctrl-D):
    // readline would then wait for a 'close' that never comes.
    const stdin = io.stdin as NodeJS.ReadableStream & { readableEnded?: boolean };
    if (stdin.readableEnded === true) return finish();
    stdin.once('end', () => finish());
    rl.prompt();
  });
}
