/**
 * The connection test `profiles add` runs before saving: the `health` check, against the profile about to be written.
 */
import type { LoadedConfig } from '../config/load.js';
import type { ProfileConfig } from '../config/schema.js';
import type { Context } from '../context.js';
import { isTextgenError, TextgenError } from '../contract/errors.js';

export interface ProfileCheck {
  ok: boolean;
  /** The exit code `health` would give. */
  exitCode: number;
  /** One line: the verdict, or why the check could not run. */
  summary: string;
  /** What to do about a failure (the health check's hint), said after the verdict rather than before it. */
  hint?: string;
}

export async function checkProfile(
  ctx: Context,
  name: string,
  profile: ProfileConfig,
  userFile: string,
): Promise<ProfileCheck> {
  const { resolveProfile } = await import('../config/resolve.js');
  const { checkHealth, healthExitCode, healthLine, healthProfile, loadHealthOperation } = await import(
    '../flows/health.js'
  );
  const { calleeFor } = await import('../call/callee.js');
  const config: LoadedConfig = { profiles: { [name]: profile }, sources: { profiles: { [name]: userFile }, userFile } };
  const g = ctx.globals;
  // Only the connection flags: the credential and URL flags are already in the profile.
  const globals = {
    profile: name,
    ...(g.timeout !== undefined ? { timeout: g.timeout } : {}),
    ...(g.retries !== undefined ? { retries: g.retries } : {}),
    ...(g.caCert !== undefined ? { caCert: g.caCert } : {}),
    ...(g.insecure !== undefined ? { insecure: g.insecure } : {}),
  };
  try {
    const resolved = healthProfile(await resolveProfile({ globals, env: ctx.env, config, cwd: ctx.cwd }), g);
    const op = await loadHealthOperation(resolved.provider);
    const callee = await calleeFor(resolved.provider);
    // The health check says its hint as it goes; here it belongs after the verdict, so it is kept for the caller.
    const hints: string[] = [];
    const checkCtx: Context = Object.create(ctx);
    checkCtx.reporter = {
      ...ctx.reporter,
      info: (m) => (m.startsWith('hint: ') ? hints.push(m.slice('hint: '.length)) : ctx.reporter.info(m)),
      warn: (m) => ctx.reporter.warn(m),
      trace: (m) => ctx.reporter.trace(m),
    };
    const { report, authRefused } = await checkHealth(checkCtx, resolved, callee, op);
    const exitCode = healthExitCode(report, authRefused);
    return {
      ok: exitCode === 0,
      exitCode,
      summary: healthLine(report).trimEnd(),
      ...(hints.length > 0 ? { hint: hints.join('; ') } : {}),
    };
  } catch (e) {
    // A credential variable that is not set yet, say: the check cannot run, which is a failed check.
    if (isTextgenError(e) && e.exitCode !== 130)
      return { ok: false, exitCode: e.exitCode, summary: e.message, ...(e.hint !== undefined ? { hint: e.hint } : {}) };
    throw e;
  }
}

/** The connection test failed where nothing can ask whether to save anyway: the command fails with the check's code. */
export class ConnectionTestFailed extends TextgenError {
  readonly exitCode: number;
  constructor(check: ProfileCheck) {
    super(`connection test failed: ${check.summary}`, {
      hint: `${check.hint !== undefined ? `${check.hint}; ` : ''}nothing was saved: fix the profile, or pass --no-check to save it untested`,
    });
    this.exitCode = check.exitCode;
  }
}
