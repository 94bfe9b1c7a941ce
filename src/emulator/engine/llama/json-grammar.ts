/**
 * JSON under a schema's grammar on the llama engine (Engine.generateJson): node-llama-cpp turns the schema into a
 * GBNF grammar (`llama.createGrammarForJsonSchema`) and its sampler allows only tokens the grammar allows, so even a
 * model that writes gibberish writes a document of the schema's shape. What the grammar enforces: types, properties
 * (all of them, in order), enum, const, oneOf/anyOf, $ref into $defs, string lengths and formats, item counts. What
 * it cannot (numeric bounds, patterns, multipleOf) the model is trusted with, as with the services' own grammars.
 *
 * The schema is first brought into the dialect the grammar builder reads (`grammarSchema`): `definitions` and their
 * `#/definitions/` refs become `$defs`, `anyOf` becomes `oneOf`, `allOf` of objects is merged, and strings and arrays
 * without an upper bound get one, so that a model that never closes a string still ends inside the token budget.
 */
import type { StopReason } from '../../../contract/canonical.js';
import type { EngineOptions, JsonAnswer, JsonRequest } from '../types.js';
import type { Llama, LlamaGrammar, LlamaModel, NodeLlamaCpp, Token } from './binding.js';
import type { SequencePool } from './sequence-pool.js';

/** Longest string the grammar lets a model write where the schema sets no maxLength. */
export const DEFAULT_MAX_STRING = 32;
/** Most items where the schema sets no maxItems. */
export const DEFAULT_MAX_ITEMS = 3;
/** Any JSON object, for json_object. */
const ANY_OBJECT = { type: 'object', additionalProperties: true };

type Schema = Record<string, unknown>;

/** The schema in the grammar builder's dialect (see the file comment). */
export function grammarSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(grammarSchema);
  if (typeof schema !== 'object' || schema === null) return schema;
  const s = { ...(schema as Schema) };
  if (s.definitions !== undefined) {
    s.$defs = { ...(s.definitions as Schema), ...(s.$defs as Schema | undefined) };
    delete s.definitions;
  }
  if (typeof s.$ref === 'string') s.$ref = s.$ref.replace(/^#\/definitions\//, '#/$defs/');
  if (Array.isArray(s.anyOf) && s.oneOf === undefined) {
    s.oneOf = s.anyOf;
    delete s.anyOf;
  }
  if (Array.isArray(s.allOf)) {
    const parts = s.allOf as Schema[];
    delete s.allOf;
    for (const part of parts) {
      if (typeof part !== 'object' || part === null) continue;
      const { properties, required, ...rest } = part;
      Object.assign(s, rest);
      if (properties) s.properties = { ...(s.properties as Schema | undefined), ...(properties as Schema) };
      if (Array.isArray(required)) s.required = [...new Set([...((s.required as string[]) ?? []), ...required])];
    }
  }
  const types = Array.isArray(s.type) ? s.type : [s.type];
  if (types.includes('string') && s.enum === undefined && s.const === undefined && s.format === undefined)
    s.maxLength ??= Math.max(DEFAULT_MAX_STRING, typeof s.minLength === 'number' ? s.minLength : 0);
  if (types.includes('array'))
    s.maxItems ??= Math.max(DEFAULT_MAX_ITEMS, typeof s.minItems === 'number' ? s.minItems : 0);
  for (const key of ['properties', '$defs']) {
    const map = s[key];
    if (typeof map === 'object' && map !== null)
      s[key] = Object.fromEntries(Object.entries(map as Schema).map(([k, v]) => [k, grammarSchema(v)]));
  }
  for (const key of ['items', 'additionalProperties', 'oneOf', 'prefixItems'])
    if (s[key] !== undefined && typeof s[key] !== 'boolean') s[key] = grammarSchema(s[key]);
  return s;
}

export interface JsonGrammarRuntime {
  llamaCpp: NodeLlamaCpp;
  llama: Llama;
  model: LlamaModel;
  pool: SequencePool;
  contextSize: number;
  /** The conversation's tokens (chat template, BOS when the model wants it). */
  promptTokens(messages: JsonRequest['messages']): Token[];
}

const grammars = new WeakMap<Llama, Map<string, Promise<LlamaGrammar>>>();

/** The grammar of a schema, built once per schema text (building one costs a few milliseconds). */
function grammarFor(rt: JsonGrammarRuntime, schema: Schema): Promise<LlamaGrammar> {
  let cache = grammars.get(rt.llama);
  if (!cache) grammars.set(rt.llama, (cache = new Map()));
  const key = JSON.stringify(schema);
  let grammar = cache.get(key);
  if (!grammar) {
    grammar = rt.llama.createGrammarForJsonSchema(grammarSchema(schema) as Schema);
    cache.set(key, grammar);
    grammar.catch(() => cache.delete(key));
  }
  return grammar;
}

/** Generates the document under the grammar; stops at the grammar's end, the token budget or a cancel. */
export async function generateJsonWithGrammar(
  rt: JsonGrammarRuntime,
  request: JsonRequest,
  options: EngineOptions = {},
): Promise<JsonAnswer> {
  const grammar = await grammarFor(rt, request.schema ?? ANY_OBJECT);
  const prompt = rt.promptTokens(request.messages);
  const p = request.parameters;
  const budget = Math.max(0, Math.min(p.max_new_tokens ?? DEFAULT_MAX_STRING * 4, rt.contextSize - prompt.length));
  const greedy = p.decoding_method === 'greedy' || p.temperature === 0;
  const out: Token[] = [];
  let stopReason: StopReason = 'eos_token';
  if (budget === 0) return answer(rt, prompt, out, 'token_limit');
  const sequence = await rt.pool.acquire(options.signal);
  try {
    await sequence.clearHistory();
    const state = new rt.llamaCpp.LlamaGrammarEvaluationState({ model: rt.model, grammar });
    const tokens = sequence.evaluate([...prompt], {
      temperature: greedy ? 0 : (p.temperature ?? 1),
      ...(p.top_k !== undefined ? { topK: p.top_k } : {}),
      ...(p.top_p !== undefined ? { topP: p.top_p } : {}),
      ...(p.random_seed !== undefined ? { seed: p.random_seed } : {}),
      grammarEvaluationState: state,
    });
    for await (const token of tokens) {
      if (rt.model.isEogToken(token)) break;
      out.push(token);
      if (options.signal?.aborted) {
        stopReason = 'cancelled';
        break;
      }
      if (out.length >= budget) {
        stopReason = out.length >= rt.contextSize - prompt.length ? 'token_limit' : 'max_tokens';
        break;
      }
    }
    await tokens.return();
  } finally {
    rt.pool.release(sequence);
  }
  return answer(rt, prompt, out, stopReason);
}

function answer(rt: JsonGrammarRuntime, prompt: Token[], out: Token[], stopReason: StopReason): JsonAnswer {
  return {
    text: rt.model.detokenize(out, false).trim(),
    promptTokens: prompt.length,
    generatedTokens: out.length,
    stopReason,
  };
}
