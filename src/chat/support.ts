/**
 * A chat request against what the provider's chat API carries: a parameter it does not take is a usage error naming
 * it and the provider — or, with --ignore-unsupported, a warning and dropped; its documented limits (stop sequences,
 * alternatives per token) are usage errors before anything is sent.
 */
import { UsageError } from '../contract/errors.js';
import type { ChatCapabilities, ChatFeature } from '../contract/adapter.js';
import type { ChatParameterName, ChatParameters, ChatTool, ResponseFormat, ToolChoice } from '../contract/chat.js';

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

/** What a request asks beyond the sampling parameters (src/chat/features.ts builds it from the flags). */
export interface ChatFeatureRequest {
  tools?: ChatTool[] | undefined;
  tool_choice?: ToolChoice | undefined;
  parallel_tool_calls?: boolean | undefined;
  response_format?: ResponseFormat | undefined;
}

const FEATURE_WORDS: Record<ChatFeature, string> = {
  tools: 'tools (--tools)',
  tool_choice: '--tool-choice',
  parallel_tool_calls: '--parallel-tool-calls',
  json_object: '--response-format json_object',
  json_schema: 'json_schema (--json-schema)',
};

/** The features a request uses. */
function usedFeatures(f: ChatFeatureRequest): ChatFeature[] {
  const used: ChatFeature[] = [];
  if (f.tools !== undefined) used.push('tools');
  if (f.tool_choice !== undefined) used.push('tool_choice');
  if (f.parallel_tool_calls !== undefined) used.push('parallel_tool_calls');
  if (f.response_format?.type === 'json_object') used.push('json_object');
  if (f.response_format?.type === 'json_schema') used.push('json_schema');
  return used;
}

/**
 * Tools and structured output against the provider's chat: what it cannot take is a usage error naming the
 * provider. `--ignore-unsupported` drops only `parallel_tool_calls` (a hint about the answer's shape); tools and
 * schemas change what the answer is, so they are never dropped silently.
 */
export function checkChatFeatures(
  features: ChatFeatureRequest,
  caps: ChatCapabilities,
  kind: string,
  opts: ChatSupportOptions,
): ChatFeatureRequest {
  const kept: ChatFeatureRequest = { ...features };
  for (const feature of usedFeatures(features)) {
    if ((caps.features?.[feature] ?? 'unsupported') !== 'unsupported') continue;
    if (feature === 'parallel_tool_calls' && opts.ignoreUnsupported) {
      opts.warn(`ignoring --parallel-tool-calls: it is not supported by ${kind} chat`);
      delete kept.parallel_tool_calls;
      continue;
    }
    throw new UsageError(
      `${FEATURE_WORDS[feature]} ${feature === 'tools' ? 'are' : 'is'} not supported by ${kind} chat`,
      {
        hint:
          feature === 'parallel_tool_calls'
            ? 'drop it, or pass --ignore-unsupported to send the request without it'
            : 'see docs/protocols/chat.md for what each provider takes',
      },
    );
  }
  return kept;
}
