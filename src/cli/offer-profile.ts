/**
 * docs/design.md §6: with no profile at all, a person at a terminal is offered to create one (`profiles add`; it
 * becomes the default), and the command then runs again with it. The composition root's decision, taken after a
 * command failed for want of a profile: resolving a profile (Context.profile) never prompts.
 */
import type { Context } from '../context.js';
import { commandFor } from './commands.js';

/** True when the error was the missing profile and one was created now. */
export async function offerNewProfile(error: unknown, ctx: Context): Promise<boolean> {
  if (!ctx.terminal.interactive) return false;
  const { NoProfileSelected } = await import('../config/resolve.js');
  if (!(error instanceof NoProfileSelected)) return false;
  const prompter = await ctx.prompter();
  if (!(await prompter.confirm('No profile is configured. Create one now?', { default: true }))) return false;
  const add = commandFor('profiles add');
  if (add === undefined) throw new Error('no "profiles add" command in the command list');
  return (await add.run({ args: [] }, ctx)) === 0;
}
