/**
 * The scope options (./scope-flags.ts) turned into the profile a command runs with: `--space NAME` / `--project NAME`
 * looked up through the spaces and projects APIs with the profile's credentials, the chosen space or project put in
 * place of the profile's own `space_id`/`project_id`, and `--version` in place of its API version. `--cpd-scope`'s
 * profile was chosen before the context was made (src/cli/execute.ts). The command gets a Context whose `profile()`
 * is the scoped one, so every flow it runs (generation, listings, …) sees the same scope.
 */
import type { Context } from '../context.js';
import type { ResolvedProfile } from '../contract/profile.js';
import type { WxAiOperations, WxScope, WxScopeKind } from '../contract/adapter.js';
import { UsageError } from '../contract/errors.js';
import { readScopeFlags, type ScopeFlagOptions, type ScopeRequest } from './scope-flags.js';

/** The scoped context and the scope its calls send (the flags', else the profile's). */
export interface Scoped {
  ctx: Context;
  /** The adapter's wx-ai operations, when the profile's provider has them. */
  ops: WxAiOperations | undefined;
  profile: ResolvedProfile;
  scope: WxScope;
}

const KIND_FLAG: Record<WxScopeKind, string> = { spaces: '--space', projects: '--project' };

async function lookUp(
  ctx: Context,
  profile: ResolvedProfile,
  ops: WxAiOperations,
  kind: WxScopeKind,
  name: string,
): Promise<string> {
  const flag = KIND_FLAG[kind];
  const what = kind === 'spaces' ? 'space' : 'project';
  if (ctx.globals.dryRun)
    throw new UsageError(`${flag} "${name}" needs a look-up, and --dry-run sends nothing`, {
      hint: `give the ${what} id with ${flag}-id`,
    });
  const { requestJson } = await import('../call/send.js');
  const { calleeFor } = await import('../call/callee.js');
  const answer = await requestJson(
    ctx,
    profile,
    await calleeFor(profile.provider),
    ops.lookupRequest(profile, kind, name),
  );
  const ids = ops.parseLookup(answer.json, name);
  if (ids.length === 0)
    throw new UsageError(`no ${what} named "${name}" (looked up in /v2/${kind} with profile "${profile.name}")`, {
      hint: `check the name, or give the ${what} id with ${flag}-id`,
    });
  if (ids.length > 1)
    throw new UsageError(`${ids.length} ${kind} are named "${name}": ${ids.join(', ')}`, {
      hint: `give the one you mean with ${flag}-id`,
    });
  return ids[0] as string;
}

async function scopedProfile(
  ctx: Context,
  request: ScopeRequest,
): Promise<{ profile: ResolvedProfile; ops: WxAiOperations | undefined; scope: WxScope }> {
  const base = await ctx.profile();
  const { adapterFor } = await import('../../profiles/registry.js');
  const adapter = adapterFor(base.provider);
  const ops = adapter.wxAi ? await adapter.wxAi() : undefined;
  let profile = request.apiVersion !== undefined ? { ...base, apiVersion: request.apiVersion } : base;
  const given = request.space !== undefined || request.project !== undefined;
  if (!ops) {
    if (given)
      throw new UsageError(
        `spaces and projects are watsonx.ai's: profile "${base.name}" is ${adapter.displayName} (${base.provider})`,
        { hint: 'use a watsonx profile (--profile), or leave out --space-id/--space/--project-id/--project' },
      );
    return { profile, ops, scope: {} };
  }
  if (!given) return { profile, ops, scope: ops.profileScope(profile) };
  const scope: WxScope = {};
  // A name is looked up with the profile that will be used, connected once: a local profile's embedded server
  // starts for the look-up and answers the command too.
  if (
    !ctx.globals.dryRun &&
    ((request.space && 'name' in request.space) || (request.project && 'name' in request.project))
  )
    profile = await ctx.connect(profile);
  if (request.space)
    scope.space_id =
      'id' in request.space ? request.space.id : await lookUp(ctx, profile, ops, 'spaces', request.space.name);
  if (request.project)
    scope.project_id =
      'id' in request.project ? request.project.id : await lookUp(ctx, profile, ops, 'projects', request.project.name);
  profile = ops.withScope(profile, scope);
  return { profile, ops, scope };
}

/**
 * The context a command with scope options runs in, and the scope its calls send: the flags are checked now, the
 * profile resolved and names looked up when this is awaited.
 */
export async function resolveScope(ctx: Context, options: ScopeFlagOptions): Promise<Scoped> {
  const { profile, ops, scope } = await scopedProfile(ctx, readScopeFlags(options));
  const scoped: Context = { ...ctx, profile: async () => profile };
  return { ctx: scoped, ops, profile, scope };
}

/**
 * The same for a command that only needs its context scoped (deployment text-generate: a deployment's inference
 * call carries no scope): the flags are checked now, and nothing is resolved until the flow asks for the profile.
 * Without scope options it is the context itself.
 */
export function scopedContext(ctx: Context, options: ScopeFlagOptions): Context {
  const request = readScopeFlags(options);
  if (request.space === undefined && request.project === undefined && request.apiVersion === undefined) return ctx;
  let profile: Promise<ResolvedProfile> | undefined;
  return { ...ctx, profile: () => (profile ??= scopedProfile(ctx, request).then((s) => s.profile)) };
}
