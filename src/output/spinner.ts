import type { Context } from '../context.js';

export interface Spinner {
  /** Clears the spinner line; safe to call more than once. */
  stop(): void;
}

const NONE: Spinner = { stop() {} };

/**
 * A spinner on stderr with the elapsed time, while waiting for the first token or a whole answer. Only on a
 * terminal and never with -q, so CI output stays byte-clean. ora is loaded only when it will be shown.
 */
export async function startSpinner(ctx: Context, label: string): Promise<Spinner> {
  if (!ctx.terminal.stderrIsTTY || ctx.reporter.quiet) return NONE;
  // A terminal that reports no width (a bare pty) would make ora's line arithmetic run away: no spinner there.
  const columns = (ctx.stderr as NodeJS.WritableStream & { columns?: number }).columns;
  if (!columns || columns < 20) return NONE;
  const { importEsm } = await import('../import-esm.js');
  const { default: ora } = await importEsm<typeof import('ora')>('ora');
  const started = ctx.now();
  const text = () => `${label} ${((ctx.now() - started) / 1000).toFixed(1)} s`;
  const spinner = ora({
    text: text(),
    stream: ctx.stderr,
    discardStdin: false,
    color: ctx.terminal.color ? 'cyan' : false,
    isEnabled: true,
  });
  spinner.start();
  const timer = setInterval(() => {
    spinner.text = text();
  }, 100);
  timer.unref();
  let stopped = false;
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      spinner.stop();
    },
  };
}
