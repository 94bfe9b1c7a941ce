/**
 * The `wx-ai` mirror commands that make one call and print the service's answer (cpd-cli's `deployment list|get`,
 * `foundation-model list-models|list-tasks`, `time-series forecast`): the scope options resolved, the call placed by
 * the adapter's wx-ai operations, sent through the call pipeline (or printed as curl with --dry-run), and the
 * service's own body printed — a table (or aligned lines) for text output, the body itself for `-o json|yaml` and
 * `-j`, as cpd-cli prints it. With `allPages` a listing's `next` links are followed and every page's `resources` put
 * into the first page's body.
 */
import type { Context } from '../context.js';
import type { WxAiCall, WxAiOperations, WxScope } from '../contract/adapter.js';
import { UsageError } from '../contract/errors.js';
import { isRecord } from '../contract/wire-fields.js';
import { resolveScope } from '../options/scope-resolve.js';
import type { ScopeFlagOptions } from '../options/scope-flags.js';
import { printDryRun, requestJson } from '../call/send.js';
import { calleeFor } from '../call/callee.js';
import { MAX_PAGES, resolvePageUrl } from './models.js';
import { writeResult } from './write-result.js';

export interface WxAiRun {
  /** The command's words, for messages ("deployment list"). */
  command: string;
  /** The call, given the scope the options and the profile chose. */
  call(scope: WxScope): WxAiCall;
  /** The call runs in a space or project, and the service refuses it without one. */
  needsScope?: boolean;
  /** Follow `next.href` and gather every page's `resources` (`--all-pages`). */
  allPages?: boolean;
  /** The body for people: a table, or `key  value` lines. */
  text(body: unknown): string;
}

export async function runWxAi(ctx: Context, options: ScopeFlagOptions, run: WxAiRun): Promise<number> {
  const scoped = await resolveScope(ctx, options);
  const ops = wxAiOperations(scoped.ops, run.command, scoped.profile.name, scoped.profile.provider);
  if (run.needsScope && scoped.scope.space_id === undefined && scoped.scope.project_id === undefined)
    throw new UsageError(
      `${run.command} runs in a space or a project, and profile "${scoped.profile.name}" names neither`,
      {
        hint: 'give --space-id/--space or --project-id/--project (or --cpd-scope), or set space_id or project_id in the profile',
      },
    );
  const profile = await scoped.ctx.connect(scoped.profile);
  const spec = ops.request(profile, run.call(scoped.scope));
  if (ctx.globals.dryRun) {
    await printDryRun(scoped.ctx, profile, spec);
    return 0;
  }
  const callee = await calleeFor(profile.provider);
  const first = await requestJson(scoped.ctx, profile, callee, spec);
  let body = first.json;
  if (run.allPages && isRecord(body)) {
    const resources: unknown[] = Array.isArray(body.resources) ? [...body.resources] : [];
    let request = spec;
    let page: unknown = body;
    const seen = new Set([spec.url]);
    for (let pages = 1; pages < MAX_PAGES; pages++) {
      const href = isRecord(page) && isRecord(page.next) ? page.next.href : undefined;
      if (typeof href !== 'string') break;
      const url = resolvePageUrl(href, request.url, profile.url);
      if (seen.has(url)) break;
      seen.add(url);
      request = ops.nextRequest(url, request);
      page = (await requestJson(scoped.ctx, profile, callee, request)).json;
      if (isRecord(page) && Array.isArray(page.resources)) resources.push(...page.resources);
    }
    // One body, as one page would have been: every resource, and no next page left to ask for.
    const { next: _next, ...rest } = body;
    body = { ...rest, resources };
  }
  await writeResult(scoped.ctx, ctx.output().format, body, () => run.text(body));
  return 0;
}

/** The adapter's wx-ai operations; a provider without them cannot run the mirror commands. */
export function wxAiOperations(
  ops: WxAiOperations | undefined,
  command: string,
  profile: string,
  provider: string,
): WxAiOperations {
  if (ops) return ops;
  throw new UsageError(`${command} is a watsonx.ai command: profile "${profile}" is ${provider}`, {
    hint: 'use a watsonx profile (--profile), e.g. --profile local',
  });
}
