/**
 * Runs the command the command line chose (./cli.ts parses it): the context, Ctrl-C, the handler, the one error
 * line, the clean-up. Apart from the parser so that help and usage errors load none of this.
 */
import { HANDLERS } from '../commands/handlers.js';
import { createContext, type ProcessLike } from './context-factory.js';
import type { MainOptions, Selection } from './selection.js';
import { reportFailure } from './report-failure.js';

export async function executeCommand(selection: Selection, io: ProcessLike, options: MainOptions = {}): Promise<number> {
  const run = HANDLERS[selection.key];
  if (run === undefined) throw new Error(`no handler for the command "${selection.key}"`);
  const controller = new AbortController();
  let interrupts = 0;
  const onSigint = () => {
    interrupts += 1;
    if (interrupts > 1) {
      io.stderr.write('\n');
      process.exit(130);
    }
    controller.abort();
  };
  if (options.handleSignals) process.on('SIGINT', onSigint);
  const ctx = createContext(io, selection.globals, controller.signal);
  let code: number;
  try {
    code = await run(selection.opts, ctx);
  } catch (e) {
    code = reportFailure(e, ctx.reporter, io.stderr, selection.globals.verbose === true, ctx.terminal.colorLevel);
  } finally {
    await ctx.dispose();
    if (options.handleSignals) process.off('SIGINT', onSigint);
  }
  return code;
}
