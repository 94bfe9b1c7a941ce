/**
 * The tool and structured-output flags of `chat`, read and checked before anything is sent (src/chat/flag-specs.ts
 * `CHAT_TOOL_OPTION_SPECS`): what goes on the wire (`ChatFeatureRequest`) and how the turn runs (`--run-tool`,
 * `--max-tool-rounds`, `--tool-timeout`, `--yes`, `--schema-retries`).
 */
import { UsageError } from '../contract/errors.js';
import { coerceInt } from '../options/flag-values.js';
import { readJsonOption, type JsonOptionIo } from '../options/json-option.js';
import type { ChatOptions } from './flag-specs.js';
import { buildResponseFormat } from './response-format.js';
import type { ChatFeatureRequest } from './support.js';
import { DEFAULT_TOOL_TIMEOUT_MS, parseRunTools } from './tool-runner.js';

export type ChatFeatureOptions = Pick<
  ChatOptions,
  | 'tools'
  | 'toolChoice'
  | 'parallelToolCalls'
  | 'runTool'
  | 'maxToolRounds'
  | 'toolTimeout'
  | 'yes'
  | 'responseFormat'
  | 'jsonSchema'
  | 'schemaName'
  | 'schemaRetries'
>;

export interface ChatFeatureSetup {
  features: ChatFeatureRequest;
  runTools: Map<string, string[]>;
  maxToolRounds: number;
  toolTimeoutMs: number;
  yes: boolean;
  schemaRetries: number;
}

function count(flag: string, value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const n = coerceInt(value);
  if (typeof n !== 'number' || n < min || n > max)
    throw new UsageError(`${flag} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`);
  return n;
}

export async function buildChatFeatures(options: ChatFeatureOptions, io: JsonOptionIo): Promise<ChatFeatureSetup> {
  const features: ChatFeatureRequest = {};
  if (options.tools !== undefined) {
    const { checkTools } = await import('./tools.js');
    features.tools = await checkTools(await readJsonOption('--tools', options.tools, io), '--tools');
  }
  if (options.toolChoice !== undefined) {
    const { parseToolChoice } = await import('./tools.js');
    features.tool_choice = parseToolChoice(options.toolChoice, features.tools);
  }
  if (options.parallelToolCalls !== undefined) {
    if (features.tools === undefined)
      throw new UsageError('--parallel-tool-calls / --no-parallel-tool-calls need tools: give them with --tools');
    features.parallel_tool_calls = options.parallelToolCalls;
  }
  const jsonSchema =
    options.jsonSchema === undefined ? undefined : await readJsonOption('--json-schema', options.jsonSchema, io);
  const format = await buildResponseFormat({
    responseFormat: options.responseFormat,
    jsonSchema,
    schemaName: options.schemaName,
  });
  if (format !== undefined) features.response_format = format;
  const runTools = parseRunTools(
    options.runTool ?? [],
    features.tools?.map((t) => t.function.name),
  );
  const schemaRetries = count('--schema-retries', options.schemaRetries, 0, 0, 10);
  if (options.schemaRetries !== undefined && (format === undefined || format.type === 'text'))
    throw new UsageError(
      '--schema-retries applies to structured answers: give --json-schema or --response-format json_object',
    );
  if (runTools.size === 0) {
    for (const [flag, v] of [
      ['--max-tool-rounds', options.maxToolRounds],
      ['--tool-timeout', options.toolTimeout],
    ] as const)
      if (v !== undefined) throw new UsageError(`${flag} applies to --run-tool`);
  }
  return {
    features,
    runTools,
    maxToolRounds: count('--max-tool-rounds', options.maxToolRounds, 8, 1, 100),
    toolTimeoutMs: count('--tool-timeout', options.toolTimeout, DEFAULT_TOOL_TIMEOUT_MS, 1, 3_600_000),
    yes: options.yes === true,
    schemaRetries,
  };
}
