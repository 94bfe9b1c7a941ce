/**
 * `serve --upstream`: which front protocol goes to which upstream profile, from the flags (`--upstream PROFILE` for
 * all four, `--upstream watsonx=wx-prod` for one) or, without them, from the `upstream:` field of the profile serve
 * runs under (`--profile NAME` / TEXTGEN_PROFILE); then one upstream engine per profile named. docs/gateway.md.
 */
import { UsageError } from '../contract/errors.js';
import { redactUrl } from '../contract/redact.js';
import type { ResolvedProfile } from '../contract/profile.js';
import type { Context } from '../context.js';
import type { Engine } from '../emulator/engine/engine.js';
import type { Transport } from '../http/transport.js';

/** The front protocols, as the flag and the config field name them (src/emulator/core's protocol families). */
export const FRONTS = ['watsonx', 'openai', 'aleph-alpha', 'open-inference'] as const;
export type Front = (typeof FRONTS)[number];
/** Azure OpenAI's routes are the OpenAI family's. */
const ALIASES: Record<string, Front> = { 'azure-openai': 'openai', azure: 'openai' };

export type UpstreamChoice = Partial<Record<Front, string>>;

/** `--upstream` values → front protocol → profile name; a usage error names a bad one. */
export function parseUpstreamFlags(values: readonly string[]): UpstreamChoice {
  const choice: UpstreamChoice = {};
  for (const value of values) {
    const at = value.indexOf('=');
    const profile = (at < 0 ? value : value.slice(at + 1)).trim();
    if (profile === '') throw new UsageError(`--upstream ${JSON.stringify(value)}: no profile name`);
    if (at < 0) {
      for (const front of FRONTS) choice[front] ??= profile;
      continue;
    }
    const word = value.slice(0, at).trim().toLowerCase();
    const front = (FRONTS as readonly string[]).includes(word) ? (word as Front) : ALIASES[word];
    if (!front)
      throw new UsageError(`--upstream ${JSON.stringify(value)}: unknown front protocol "${word}"`, {
        hint: `use ${FRONTS.join(', ')} (or azure-openai), as --upstream PROTOCOL=PROFILE`,
      });
    choice[front] = profile;
  }
  return choice;
}

/** The `upstream:` field of a profile: one name for every front protocol, or a map of them. */
export function choiceOfField(field: string | Partial<Record<string, string>> | undefined): UpstreamChoice {
  if (field === undefined) return {};
  if (typeof field === 'string') return parseUpstreamFlags([field]);
  return parseUpstreamFlags(Object.entries(field).map(([front, profile]) => `${front}=${profile ?? ''}`));
}

export interface Gateway {
  engines: Partial<Record<Front, Engine>>;
  /** One line per front protocol served by an upstream, for serve to print at start. */
  describe(): string[];
}

/**
 * Resolves each profile named (once) and makes its engine. `transportFor` is serve's one place that builds the
 * Transport upstream calls go through.
 */
export async function openGateway(
  ctx: Context,
  choice: UpstreamChoice,
  options: { ignoreUnsupported: boolean; transportFor: (profile: ResolvedProfile) => Promise<Transport> },
): Promise<Gateway> {
  const { loadConfig } = await import('../config/load.js');
  const { resolveProfile } = await import('../config/resolve.js');
  const { openUpstream } = await import('./upstream.js');
  const { upstreamEngine } = await import('./engine.js');
  const configPath = ctx.globals.config ?? ctx.env.TEXTGEN_CONFIG;
  const config = await loadConfig({
    cwd: ctx.cwd,
    env: ctx.env,
    ...(configPath ? { configPath } : {}),
    warn: (m) => ctx.reporter.warn(m),
  });
  const made = new Map<string, { engine: Engine; profile: ResolvedProfile }>();
  const engines: Partial<Record<Front, Engine>> = {};
  const served: Array<[Front, ResolvedProfile]> = [];
  for (const front of FRONTS) {
    const name = choice[front];
    if (name === undefined) continue;
    let entry = made.get(name);
    if (!entry) {
      const globals = { ...ctx.globals, profile: name, provider: undefined, url: undefined };
      const configured = await resolveProfile({
        globals,
        env: { ...ctx.env, TEXTGEN_PROFILE: undefined },
        config,
        cwd: ctx.cwd,
      });
      const up = await openUpstream(ctx, configured, await options.transportFor(configured), options.ignoreUnsupported);
      entry = { engine: upstreamEngine(up), profile: up.profile };
      made.set(name, entry);
    }
    engines[front] = entry.engine;
    served.push([front, entry.profile]);
  }
  return {
    engines,
    describe: () =>
      served.map(
        ([front, p]) =>
          `${front} → upstream ${p.name} (${p.provider} at ${redactUrl(p.url)}${p.defaults.model ? `, model ${p.defaults.model}` : ''})`,
      ),
  };
}
