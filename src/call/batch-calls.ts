/**
 * The calls of a provider batch job (`batch submit|status|wait|results|cancel|list`) through the one pipeline:
 * credentials and the one 401 refresh (sendOk), the HTTP client's retries, errors in the provider's words, JSON
 * answers read by the adapter's BatchOperation. Also the per-line errors an error file reports, mapped as a direct
 * call's answer would have been (status-error.ts).
 */
import type { Context } from '../context.js';
import type { BatchOperation, BatchScope, ProviderBatch } from '../contract/adapter.js';
import type { ResolvedProfile } from '../contract/profile.js';
import type { HttpRequestSpec } from '../contract/http.js';
import { UsageError } from '../contract/errors.js';
import { readAnswer } from './answer.js';
import { calleeFor, type NamedCallee } from './callee.js';
import { requestJson, sendOk } from './send.js';
import { errorOfAnswer } from './status-error.js';

export interface BatchService {
  profile: ResolvedProfile;
  op: BatchOperation;
  callee: NamedCallee;
  scope: BatchScope;
  /** One call whose answer is JSON. */
  json(spec: HttpRequestSpec): Promise<unknown>;
  /** One call whose answer is text (a file's content). */
  text(spec: HttpRequestSpec): Promise<string>;
  /** One call whose answer is a batch object. */
  batch(spec: HttpRequestSpec): Promise<ProviderBatch>;
  /** An error file line's status and body as the error a direct call would have had. */
  lineError(status: number, body: unknown): Error;
}

/** The profile's batch service; a usage error naming where batches work when its provider has none. */
export async function batchService(ctx: Context, scope: BatchScope): Promise<BatchService> {
  const profile = await ctx.connect(await ctx.profile());
  const { adapterFor, kindsWith } = await import('../../profiles/registry.js');
  const adapter = adapterFor(profile.provider);
  if (adapter.batch === undefined) {
    const kinds = kindsWith((a) => a.batch !== undefined);
    throw new UsageError(
      `${adapter.displayName} has no batch service textgen can use; batches work with ${kinds.join(', ')}`,
      {
        hint: `run the file on this machine instead: --batch FILE on complete, chat or embed`,
      },
    );
  }
  const op = await adapter.batch();
  const callee = await calleeFor(profile.provider);
  const json = async (spec: HttpRequestSpec) => (await requestJson(ctx, profile, callee, spec)).json;
  return {
    profile,
    op,
    callee,
    scope,
    json,
    async text(spec) {
      const res = await sendOk(ctx, profile, callee, spec);
      return res.text();
    },
    async batch(spec) {
      const answer = await requestJson(ctx, profile, callee, spec);
      return readAnswer(() => op.parseBatch(answer.json), answer.context);
    },
    lineError(status, body) {
      return errorOfAnswer(callee, status, typeof body === 'string' ? body : JSON.stringify(body ?? null));
    },
  };
}
