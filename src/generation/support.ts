import type { CanonicalParameters, CanonicalRequest, ReturnOptions } from '../contract/canonical.js';
import type { ResolvedProfile } from '../contract/profile.js';
import { UsageError } from '../contract/errors.js';
import type { GenerateTarget, GenerateOperation, Support } from '../contract/adapter.js';
import { merged } from '../contract/spread.js';

/** What the CLI does itself because the provider cannot (docs/design.md §3 "client" cells). */
export interface ClientSide {
  /** Stop the generation after this many milliseconds and report stop_reason time_limit. */
  timeLimitMs?: number;
  /**
   * The service keeps the time limit itself, but a service that does not (a stream of keep-alives) must not hold
   * the CLI for ever: past this many milliseconds the CLI stops waiting and reports time_limit with the text so far.
   */
  timeLimitBackstopMs?: number;
  /** Fill `{{name}}` in the prompt. */
  promptVariables?: Record<string, string>;
}

export interface CheckedRequest {
  /** What the provider profile may put on the wire. */
  request: CanonicalRequest;
  client: ClientSide;
}

export interface SupportOptions {
  ignoreUnsupported: boolean;
  warn(message: string): void;
}

/** The service's own time limit, plus a grace for sending what it generated in time (as much again, at least 5 s). */
export function timeLimitBackstop(timeLimitMs: number): number {
  return timeLimitMs + Math.max(5_000, timeLimitMs);
}

/** A value that asks for nothing (false, 0, empty) needs no support. */
function asksForSomething(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === 0) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value as object).length > 0;
  return true;
}

/**
 * Checks a canonical request against what the provider can carry (docs/design.md §3): unsupported parameters are a usage
 * error naming parameter and provider — or, with --ignore-unsupported, a warning and dropped; `client` ones are
 * taken out for the CLI to do; `extra` ones stay only when the profile lists them in server_parameters. Provider
 * limits (stop sequences) are enforced here, before anything is sent.
 */
export function checkSupport(
  input: CanonicalRequest,
  provider: GenerateOperation,
  profile: ResolvedProfile,
  target: GenerateTarget,
  opts: SupportOptions,
): CheckedRequest {
  const caps = provider.capabilities;
  const kind = provider.kind;
  const unsupported: string[] = [];
  const notListed: string[] = [];
  const client: ClientSide = {};
  const parameters: Record<string, unknown> = {};
  const supportOf = (key: keyof CanonicalParameters): Support =>
    (target.deployment === undefined ? caps.forModels?.[key] : undefined) ?? caps.parameters[key];

  for (const [key, value] of Object.entries(input.parameters ?? {}) as Array<[keyof CanonicalParameters, unknown]>) {
    if (value === undefined) continue;
    if (key === 'return_options') {
      const kept: Record<string, unknown> = {};
      for (const [rk, rv] of Object.entries(value as ReturnOptions) as Array<[keyof ReturnOptions, unknown]>) {
        const s = caps.returnOptions[rk];
        if (s === 'native' || (s === 'extra' && profile.serverParameters.includes(rk))) kept[rk] = rv;
        else if (asksForSomething(rv)) (s === 'extra' ? notListed : unsupported).push(`return_options.${rk}`);
      }
      if (Object.keys(kept).length > 0) parameters.return_options = kept;
      continue;
    }
    const s = supportOf(key);
    if (s === 'native') {
      parameters[key] = value;
      if (key === 'time_limit') client.timeLimitBackstopMs = timeLimitBackstop(value as number);
    } else if (s === 'client') {
      if (key === 'time_limit') client.timeLimitMs = value as number;
      else if (key === 'prompt_variables') client.promptVariables = value as Record<string, string>;
      else parameters[key] = value;
    } else if (s === 'extra' && profile.serverParameters.includes(key)) parameters[key] = value;
    else if (key === 'include_stop_sequence' && value === true) {
      // Asking for the default that the provider cannot change is not worth an error.
    } else if (s === 'extra') notListed.push(key);
    else unsupported.push(key);
  }
  const request: CanonicalRequest = merged(input, { parameters: parameters as CanonicalParameters });
  if (input.moderations !== undefined && asksForSomething(input.moderations)) {
    const s = caps.moderations;
    if (!(s === 'native' || (s === 'extra' && profile.serverParameters.includes('moderations')))) {
      (s === 'extra' ? notListed : unsupported).push('moderations');
      delete request.moderations;
    }
  }
  if (input.n !== undefined && input.n > 1 && caps.choices !== 'native') {
    unsupported.push('n (several completions)');
    delete request.n;
  }

  const stops = request.parameters?.stop_sequences;
  if (stops && caps.maxStopSequences !== undefined && stops.length > caps.maxStopSequences) {
    throw new UsageError(`${kind} accepts at most ${caps.maxStopSequences} stop sequences, got ${stops.length}`);
  }

  const problems = [
    ...unsupported.map((p) => ({ p, why: `is not supported by ${kind}` })),
    ...notListed.map((p) => ({ p, why: `is sent to ${kind} only when the profile lists it in server_parameters` })),
  ];
  if (problems.length > 0) {
    if (!opts.ignoreUnsupported) {
      const first = problems[0] as { p: string; why: string };
      const message =
        problems.length === 1
          ? `parameter ${first.p} ${first.why}`
          : `parameters ${problems.map((x) => x.p).join(', ')} are not supported by ${kind}${notListed.length > 0 ? " (or not listed in the profile's server_parameters)" : ''}`;
      const them = problems.length === 1 ? 'it' : 'them';
      throw new UsageError(message, {
        hint: `drop ${them}, or pass --ignore-unsupported to send the request without ${them}`,
      });
    }
    for (const { p, why } of problems) opts.warn(`ignoring ${p}: it ${why}`);
  }
  return { request, client };
}

/** `{{name}}` (spaces allowed inside the braces) → the variable's value; a placeholder without a value is an error. */
export function fillPromptVariables(input: string, variables: Record<string, string>): string {
  const missing = new Set<string>();
  const filled = input.replace(/\{\{\s*([A-Za-z_][\w.-]*)\s*\}\}/g, (whole, name: string) => {
    if (Object.hasOwn(variables, name)) return variables[name] as string;
    missing.add(name);
    return whole;
  });
  if (missing.size > 0) {
    const names = [...missing].map((n) => `{{${n}}}`).join(', ');
    throw new UsageError(
      `the prompt uses ${names} but --parameters-prompt-variables gives no value for ${missing.size === 1 ? 'it' : 'them'}`,
    );
  }
  return filled;
}
