/**
 * The progress line of a batch on stderr — done, failed, rate, ETA — redrawn at most ten times a second on one
 * line and erased at the end. Only where a person watches: stderr is a terminal, CI is not set, no -q.
 */
import type { Context } from '../context.js';
import type { BatchStats } from './scheduler.js';

export interface Progress {
  /** Erases the line; safe to call more than once. */
  stop(): void;
}

const NONE: Progress = { stop() {} };
const ERASE = '\r\u001b[2K';

export function isCi(env: Record<string, string | undefined>): boolean {
  const ci = env.CI;
  return ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0';
}

export function progressWanted(ctx: Context): boolean {
  return ctx.terminal.stderrIsTTY && !isCi(ctx.env) && !ctx.reporter.quiet;
}

function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** One line of progress; `total` is the number of lines this run will process, when known. */
export function renderProgress(stats: BatchStats, elapsedMs: number, total: number | undefined): string {
  const rate = elapsedMs > 0 ? (stats.written * 1000) / elapsedMs : 0;
  const done = total === undefined ? `${stats.written}` : `${stats.written}/${total}`;
  const parts = [`batch: ${done} done`, `${stats.failed} failed`, `${rate.toFixed(rate < 10 ? 1 : 0)} lines/s`];
  if (total !== undefined && rate > 0) parts.push(`ETA ${duration(Math.max(0, total - stats.written) / rate)}`);
  if (stats.throttled > 0) parts.push(`429×${stats.throttled}, limit ${stats.limit}`);
  return parts.join(' · ');
}

export function startProgress(ctx: Context, stats: BatchStats, total: () => number | undefined): Progress {
  if (!progressWanted(ctx)) return NONE;
  const started = ctx.now();
  // A bare pty may report 0 columns: assume the usual 80 then.
  const columns = (ctx.stderr as NodeJS.WritableStream & { columns?: number }).columns || 80;
  let last = '';
  const draw = () => {
    let line = renderProgress(stats, ctx.now() - started, total());
    if (line.length > columns - 1) line = line.slice(0, Math.max(0, columns - 1));
    if (line === last) return;
    last = line;
    ctx.stderr.write(`${ERASE}${line}`);
  };
  const timer = setInterval(draw, 100);
  timer.unref();
  draw();
  let stopped = false;
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      ctx.stderr.write(ERASE);
    },
  };
}
