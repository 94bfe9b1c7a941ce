/**
 * The providers' batch line format, `{"custom_id", "method": "POST", "url", "body"}` (OpenAI's Batch API, Azure
 * OpenAI's global batch, watsonx.ai's batch API, and what `vllm run-batch` reads), read as a `--batch` line: the
 * `url` must fit the command (complete and text-generate take completions or text generation, chat takes chat
 * completions, embed takes embeddings), and the `body` is mapped to the line textgen's own format would have
 * (`{"input" | "messages", "parameters", "id"}`), so the command then checks it exactly as its own lines. A line's
 * error keeps its `custom_id` as the record's id. docs/batch.md "The providers' line format".
 */
import { UsageError } from '../contract/errors.js';

export type LineEndpoint = 'completions' | 'chat' | 'embeddings';

/** The routes each provider names in a line's `url` (query strings aside). */
const URLS: Record<string, LineEndpoint> = {
  '/v1/completions': 'completions',
  '/completions': 'completions',
  '/ml/v1/text/generation': 'completions',
  '/v1/chat/completions': 'chat',
  '/chat/completions': 'chat',
  '/ml/v1/text/chat': 'chat',
  '/v1/embeddings': 'embeddings',
  '/embeddings': 'embeddings',
  '/ml/v1/text/embeddings': 'embeddings',
};

const REQUESTS: Record<LineEndpoint, string> = {
  completions: 'a completions request',
  chat: 'a chat completions request',
  embeddings: 'an embeddings request',
};

const COMMANDS: Record<LineEndpoint, string> = {
  completions: 'complete and deployment text-generate',
  chat: 'chat',
  embeddings: 'embed',
};

/** Fields a body may carry that textgen's line has no place for, because the command line gives them. */
const TARGET_FIELDS = new Set(['model', 'model_id', 'project_id', 'space_id']);

/** OpenAI completions body fields → canonical parameters. */
const COMPLETION_PARAMETERS: Record<string, string> = {
  max_tokens: 'max_new_tokens',
  min_tokens: 'min_new_tokens',
  temperature: 'temperature',
  top_p: 'top_p',
  top_k: 'top_k',
  seed: 'random_seed',
  stop: 'stop_sequences',
  repetition_penalty: 'repetition_penalty',
};

const CHAT_TOP_LEVEL = new Set(['tools', 'tool_choice', 'parallel_tool_calls', 'response_format']);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A JSON object of the providers' format: it names `custom_id`, or a `url` and a `body`. */
export function isProviderLine(value: unknown): value is Record<string, unknown> {
  return isObject(value) && ('custom_id' in value || ('url' in value && 'body' in value));
}

/** The endpoint a line's url names, whoever's route it is; undefined for a route no batch service has. */
export function endpointOfLineUrl(url: string): LineEndpoint | undefined {
  return URLS[url.replace(/\?.*$/, '')];
}

/** One text from `prompt`/`input`/`inputs`: a string, or a list holding exactly one. */
function oneText(value: unknown, field: string, fail: (m: string) => never): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.length === 1 && typeof value[0] === 'string') return value[0];
  if (Array.isArray(value))
    return fail(`"body.${field}" holds ${value.length} texts; a batch line is one request of one text`);
  return fail(`"body.${field}" must be a string`);
}

/**
 * A provider line → the textgen line the command reads. Throws a UsageError (with the custom_id as the record's id)
 * for a line that does not fit: no custom_id, another method, a url of another command, a body field without a
 * textgen counterpart.
 */
export function fromProviderLine(obj: Record<string, unknown>, endpoint: LineEndpoint): Record<string, unknown> {
  const id = obj.custom_id;
  const idJson = typeof id === 'string' ? JSON.stringify(id) : undefined;
  const fail = (message: string): never => {
    throw Object.assign(new UsageError(message), { lineId: idJson });
  };
  if (typeof id !== 'string' || id === '') fail('"custom_id" must be a non-empty string');
  for (const key of Object.keys(obj))
    if (!['custom_id', 'method', 'url', 'body'].includes(key))
      fail(`unknown field "${key}" on the line (a provider line has custom_id, method, url and body)`);
  if (obj.method !== undefined && obj.method !== 'POST')
    fail(`"method" must be "POST", got ${JSON.stringify(obj.method)}`);
  if (typeof obj.url !== 'string') fail('"url" must be a string (the route, e.g. /v1/chat/completions)');
  const url = obj.url as string;
  const named = endpointOfLineUrl(url);
  if (named === undefined) fail(`"url" ${JSON.stringify(url)} is not a route textgen runs`);
  if (named !== endpoint)
    fail(
      `"url" ${url} is ${REQUESTS[named as LineEndpoint]}, which ${COMMANDS[endpoint]} does not run (use ${COMMANDS[named as LineEndpoint]})`,
    );
  if (!isObject(obj.body)) fail('"body" must be a JSON object');
  const body = obj.body as Record<string, unknown>;
  if (body.stream === true) fail('"body.stream" cannot be true in a batch line');
  const out: Record<string, unknown> = { id };
  const rest = Object.entries(body).filter(([k]) => !TARGET_FIELDS.has(k) && k !== 'stream');
  if (endpoint === 'chat') {
    const parameters: Record<string, unknown> = {};
    for (const [k, v] of rest) {
      if (k === 'messages') out.messages = v;
      else if (CHAT_TOP_LEVEL.has(k)) out[k] = v;
      else parameters[k] = v;
    }
    if (out.messages === undefined) fail('"body" has no "messages"');
    if (Object.keys(parameters).length > 0) out.parameters = parameters;
    return out;
  }
  if (endpoint === 'embeddings') {
    for (const [k, v] of rest) {
      if (k === 'input' || k === 'inputs') out.input = oneText(v, k, fail);
      else if (k === 'encoding_format' && v === 'float') continue;
      else fail(`"body.${k}" has no counterpart in embed --batch`);
    }
    if (out.input === undefined) fail('"body" has no "input"');
    return out;
  }
  // completions: OpenAI's prompt and sampling fields, or watsonx's input and canonical parameters.
  const parameters: Record<string, unknown> = {};
  for (const [k, v] of rest) {
    if (k === 'prompt' || k === 'input') out.input = oneText(v, k, fail);
    else if (k === 'parameters' && isObject(v)) Object.assign(parameters, v);
    else if (k in COMPLETION_PARAMETERS)
      parameters[COMPLETION_PARAMETERS[k] as string] = k === 'stop' && typeof v === 'string' ? [v] : v;
    else fail(`"body.${k}" has no counterpart in textgen's generation parameters`);
  }
  if (out.input === undefined) fail('"body" has no "prompt"');
  if (Object.keys(parameters).length > 0) out.parameters = parameters;
  return out;
}
