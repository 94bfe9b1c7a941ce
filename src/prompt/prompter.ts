/**
 * Asking a person for what is missing (docs/design.md §6). Commands ask only after checking `ctx.terminal.interactive`;
 * the prompter a non-interactive run gets refuses every question with a usage error, so a forgotten check fails
 * loudly instead of waiting on a keyboard nobody is at.
 */
import { UsageError } from '../contract/errors.js';

export interface Choice<T extends string = string> {
  value: T;
  /** What the list shows; the value when absent. */
  name?: string;
  description?: string;
}

export interface Prompter {
  text(message: string, options?: { default?: string; validate?: (value: string) => string | true }): Promise<string>;
  /** Masked input: the secret is never echoed. */
  password(message: string): Promise<string>;
  select<T extends string>(message: string, choices: readonly Choice<T>[], options?: { default?: T }): Promise<T>;
  /** Several lines of text, ended by an empty line or Ctrl-D. */
  multiline(message: string): Promise<string>;
  confirm(message: string, options?: { default?: boolean }): Promise<boolean>;
}

/** The prompter of a run that must not prompt: every question names what was missing instead. */
export function refusingPrompter(): Prompter {
  const refuse = (message: string): never => {
    throw new UsageError(`cannot ask "${message.replace(/[:?]\s*$/, '')}": not on an interactive terminal`, {
      hint: 'give the value as a flag (prompts need stdin and stderr to be terminals, CI unset and no --no-interactive)',
    });
  };
  return {
    text: async (m) => refuse(m),
    password: async (m) => refuse(m),
    select: async (m) => refuse(m),
    multiline: async (m) => refuse(m),
    confirm: async (m) => refuse(m),
  };
}
