/**
 * A chat request against what the provider's chat API carries: a parameter it does not take is a usage error naming
 * it and the provider — or, with --ignore-unsupported, a warning and dropped; its documented limits (stop sequences,
 * alternatives per token) are usage errors before anything is sent.
 */
import { UsageError } from '../contract/errors.js';
import type { ChatCapabilities } from '../contract/adapter.js';
import type { ChatParameterName, ChatParameters } from '../contract/chat.js';

export interface ChatSupportOptions {
  ignoreUnsupported: boolean;
  warn(message: string): void;
}

export function checkChatSupport(
  parameters: ChatParameters,
  caps: ChatCapabilities,
  kind: string,
  opts: ChatSupportOptions,
): ChatParameters {
  const kept: Record<string, unknown> = {};
  const unsupported: ChatParameterName[] = [];
  for (const [name, value] of Object.entries(parameters) as Array<[ChatParameterName, unknown]>) {
    if (value === undefined) continue;
    if (caps.parameters[name] === 'native') kept[name] = value;
    else unsupported.push(name);
  }
  if (unsupported.length > 0) {
    const list = unsupported.join(', ');
    const them = unsupported.length === 1 ? 'it' : 'them';
    if (!opts.ignoreUnsupported) {
      throw new UsageError(
        `${unsupported.length === 1 ? 'parameter' : 'parameters'} ${list} ${unsupported.length === 1 ? 'is' : 'are'} not supported by ${kind} chat`,
        {
          hint: `drop ${them}, or pass --ignore-unsupported to send the request without ${them}`,
        },
      );
    }
    for (const name of unsupported) opts.warn(`ignoring ${name}: it is not supported by ${kind} chat`);
  }
  const result = kept as ChatParameters;
  if (result.stop && caps.maxStop !== undefined && result.stop.length > caps.maxStop) {
    throw new UsageError(`${kind} accepts at most ${caps.maxStop} stop sequences, got ${result.stop.length}`);
  }
  if (
    result.top_logprobs !== undefined &&
    caps.maxTopLogprobs !== undefined &&
    result.top_logprobs > caps.maxTopLogprobs
  ) {
    throw new UsageError(
      `${kind} returns at most ${caps.maxTopLogprobs} alternatives per token, got ${result.top_logprobs}`,
    );
  }
  return result;
}
