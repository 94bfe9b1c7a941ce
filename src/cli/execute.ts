/**
 * Runs the command the command line chose (./cli.ts parses it): the context, signals, --max-time, the handler, the
 * one error line, output that could not be written, the clean-up. Apart from the parser so that help and usage
 * errors load none of this.
 */
import { COMMAND_SPECS, commandFor } from './commands.js';
import { createContext, type ProcessLike } from './context-factory.js';
import { Interrupted, NetworkError, OutputError, StreamError } from '../contract/errors.js';
import { offerNewProfile } from './offer-profile.js';
import { reportFailure } from './report-failure.js';
import type { MainOptions, Selection } from './selection.js';
import { parseIntegerFlag } from '../options/integer-flag.js';
import { cpdScopeProfile } from '../options/scope-flags.js';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
type SignalName = (typeof SIGNALS)[number];
/** 128 + the signal's number, as shells report a process a signal ended (docs/design.md §5). */
const SIGNAL_EXIT: Record<SignalName, number> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };

const MAX_TIMER_MS = 2 ** 31 - 1;

/** Why a write to stdout failed, in words. */
function writeFailure(e: unknown): string {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  const words: Record<string, string> = {
    ENOSPC: 'no space left on device',
    EBADF: 'stdout is not open',
    EIO: 'input/output error',
    EDQUOT: 'disk quota exceeded',
    EFBIG: 'file too large',
  };
  return code !== undefined ? `${words[code] ?? (e as Error).message} (${code})` : String((e as Error)?.message ?? e);
}

/** --max-time in ms: a whole number above 0 (setTimeout cannot wait longer than 2^31 − 1 ms, about 24 days). */
function parseMaxTime(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  return parseIntegerFlag('--max-time', value, {
    min: 1,
    max: MAX_TIMER_MS,
    says: `must be a whole number of milliseconds from 1 to ${MAX_TIMER_MS}`,
  });
}

export async function executeCommand(
  selection: Selection,
  io: ProcessLike,
  options: MainOptions = {},
): Promise<number> {
  const run = commandFor(selection.key)?.run;
  if (run === undefined) throw new Error(`no handler for the command "${selection.key}"`);
  /*
   * Ctrl-C, and the signals CI cancellation, `timeout`, `docker stop` (SIGTERM) and a closed terminal (SIGHUP) send,
   * all end a command the same way: the request is aborted, partial text flushed, a batch's finished records kept,
   * and the exit code says which signal it was (128 + its number). A second signal exits at once.
   */
  const controller = new AbortController();
  let signalled: SignalName | undefined;
  const onSignal = (signal: SignalName) => {
    if (signalled !== undefined) {
      try {
        io.stderr.write('\n');
      } catch {
        // A hung-up terminal: nothing to write to.
      }
      process.exit(SIGNAL_EXIT[signal]);
    }
    signalled = signal;
    controller.abort();
  };
  const handlers = SIGNALS.map((signal) => [signal, () => onSignal(signal)] as const);
  if (options.handleSignals) for (const [signal, handler] of handlers) process.on(signal, handler);
  // A command's --cpd-scope cpd://PROFILE/… chooses the profile, as --profile would (src/options/scope-flags.ts); a
  // bad one is reported as the command's first error.
  let globals = selection.globals;
  let scopeError: unknown;
  try {
    const profile = cpdScopeProfile(selection.opts, globals.profile);
    if (profile !== undefined) globals = { ...globals, profile };
  } catch (e) {
    scopeError = e;
  }
  const ctx = createContext(io, globals, controller.signal, COMMAND_SPECS);
  const report = (e: unknown) =>
    reportFailure(e, ctx.reporter, io.stderr, selection.globals.verbose === true, ctx.terminal.colorLevel, (text) =>
      ctx.secrets.redact(text),
    );
  /*
   * --max-time: one deadline over everything the command does (retries, waits, streams), like curl's. It ends the
   * command the way Ctrl-C does, and is then reported as the timeout it is: exit 5, or 6 when part of the answer was
   * already written.
   */
  let deadline: NodeJS.Timeout | undefined;
  let deadlinePassed = false;
  let code: number;
  let failure: { error: unknown } | undefined;
  try {
    const maxTime = parseMaxTime(selection.globals.maxTime);
    if (maxTime !== undefined) {
      deadline = setTimeout(() => {
        deadlinePassed = true;
        controller.abort();
      }, maxTime);
    }
    if (scopeError !== undefined) throw scopeError;
    try {
      code = await run(selection.opts, ctx);
    } catch (e) {
      // No profile at all: at a terminal, `profiles add` is offered, and the command runs again with the new one.
      if (!(await offerNewProfile(e, ctx))) throw e;
      code = await run(selection.opts, ctx);
    }
  } catch (e) {
    failure = { error: e };
    code = 1;
  }
  try {
    // Output that never reached stdout is a failure of its own (exit 7); it outranks what the command made of it.
    await ctx.out.flush();
    if (
      options.handleSignals &&
      ctx.out.written > 0 &&
      (await import('../output/stdout-closed.js')).stdoutWasClosed()
    ) {
      throw new OutputError('cannot write the output: stdout is closed, so it would be lost', {
        hint: 'to discard the output, redirect it with > /dev/null',
      });
    }
    if (failure !== undefined)
      code = deadlinePassed && failure.error instanceof Interrupted ? SIGNAL_EXIT.SIGINT : report(failure.error);
  } catch (e) {
    code = report(e instanceof OutputError ? e : new OutputError(`cannot write the output: ${writeFailure(e)}`));
  } finally {
    clearTimeout(deadline);
    await ctx.dispose();
    if (options.handleSignals) for (const [signal, handler] of handlers) process.off(signal, handler);
  }
  if (deadlinePassed && signalled === undefined && code === SIGNAL_EXIT.SIGINT) {
    const seconds = Number(selection.globals.maxTime) / 1000;
    const partial = ctx.out.written > 0;
    code = report(
      partial
        ? new StreamError(`gave up after ${seconds} s (--max-time); the output so far was written`)
        : new NetworkError(`gave up after ${seconds} s (--max-time) without a complete answer`),
    );
  }
  // Commands report an interruption as 130 (Ctrl-C); the exit code names the signal that really came.
  if (signalled !== undefined && code === SIGNAL_EXIT.SIGINT) code = SIGNAL_EXIT[signalled];
  return code;
}
