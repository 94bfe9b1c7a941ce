/**
 * A provider batch's answer bodies → the `result` of textgen's batch records: exactly what the endpoint's command
 * prints with `-o json` for that one request (complete: the canonical generation result; chat: the chat result;
 * embed: `{model, embeddings: [{index: 0, embedding}], input_token_count}`), read by the adapter's own operation,
 * or with `--raw` the provider's body as it is.
 */
import type { BatchEndpoint } from '../../contract/adapter.js';
import type { ResolvedProfile } from '../../contract/profile.js';
import { UsageError } from '../../contract/errors.js';
import type { ResultQuery } from '../json-query.js';
import { resultJson } from '../json-query.js';

export type ResultDecoder = (body: unknown) => string;

export async function resultDecoder(
  profile: ResolvedProfile,
  endpoint: BatchEndpoint,
  model: string,
  raw: boolean,
  query: ResultQuery | undefined,
): Promise<ResultDecoder> {
  if (raw) return (body) => resultJson(body, query);
  const { adapterFor } = await import('../../../profiles/registry.js');
  const adapter = adapterFor(profile.provider);
  if (endpoint === 'completions') {
    const op = await adapter.generate();
    const { inCanonicalOrder } = await import('../../generation/aggregate.js');
    return (body) => resultJson(inCanonicalOrder(op.parse(body, { input: '' }, { model, stream: false })), query);
  }
  if (endpoint === 'chat') {
    if (adapter.chat === undefined) throw new UsageError(`${adapter.displayName} has no chat API`);
    const op = await adapter.chat('chat-completions');
    const { chatInCanonicalOrder } = await import('../../chat/aggregate.js');
    return (body) => resultJson(chatInCanonicalOrder(op.parse(body, { messages: [], parameters: {} })), query);
  }
  if (adapter.embed === undefined) throw new UsageError(`${adapter.displayName} has no embeddings`);
  const op = await adapter.embed();
  const { combineAnswers } = await import('../../flows/embed.js');
  return (body) => {
    const answer = op.parseResponse(body, [''], { model, inputs: [''], settings: {} });
    return resultJson(combineAnswers(answer.model ?? model, [answer]), query);
  };
}
