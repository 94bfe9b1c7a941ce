/**
 * The llama engine's structured answers on a real llama.cpp: the tiny "successor" model (test/helpers/gguf-successor.ts)
 * writes gibberish, but under the JSON-schema grammar (src/emulator/engine/llama/json-grammar.ts) what it writes is
 * a document of the schema's shape: `response_format` json_schema and json_object, and tool-call arguments for the
 * tool chosen by the same rule as the deterministic engine. Checked with ajv and through the `openai` SDK.
 */
import { Ajv } from 'ajv';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../src/emulator/core/index.js';
import type { Engine } from '../../src/emulator/engine/engine.js';
import { grammarSchema } from '../../src/emulator/engine/llama/json-grammar.js';
import { engineAvailable, successorModelDir, TEST_ENGINE } from '../helpers/llama-engine.js';

const available = engineAvailable();
const ajv = new Ajv({ strict: false });

const person = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1 },
    kind: { type: 'string', enum: ['cat', 'dog'] },
    good: { type: 'boolean' },
    tags: { type: 'array', items: { type: 'string', maxLength: 5 }, minItems: 1 },
    home: { $ref: '#/definitions/place' },
  },
  required: ['name', 'kind', 'good', 'tags', 'home'],
  additionalProperties: false,
  definitions: { place: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

describe('grammarSchema: the schema in the grammar builder\u2019s dialect', () => {
  it('moves definitions to $defs, anyOf to oneOf, and bounds open strings and arrays', () => {
    expect(grammarSchema(person)).toMatchObject({
      $defs: { place: { properties: { city: { type: 'string', maxLength: 32 } } } },
      properties: {
        name: { maxLength: 32 },
        kind: { enum: ['cat', 'dog'] },
        tags: { maxItems: 3, items: { maxLength: 5 } },
        home: { $ref: '#/$defs/place' },
      },
    });
    expect(grammarSchema({ anyOf: [{ type: 'string', maxLength: 2 }, { type: 'null' }] })).toEqual({
      oneOf: [{ type: 'string', maxLength: 2 }, { type: 'null' }],
    });
  });
});

describe.skipIf(!available)('the llama engine under a JSON-schema grammar', () => {
  let server: RunningServer;
  let engine: Engine;
  let model: ReturnType<typeof successorModelDir>;
  let openai: OpenAI;

  beforeAll(async () => {
    model = successorModelDir(1024);
    const { createLlamaEngine } = await import('../../src/emulator/engine/llama/engine.js');
    engine = await createLlamaEngine({ modelPath: model.path, ...TEST_ENGINE, contextSize: 1024 });
    server = await startServer({ engine });
    openai = new OpenAI({ apiKey: 'local', baseURL: `${server.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await server?.close();
    model?.cleanup();
  });

  it('json_schema: the gibberish model answers a document the schema accepts', async () => {
    const answer = await openai.chat.completions.create({
      model: 'successor',
      messages: [{ role: 'user', content: 'a' }],
      response_format: { type: 'json_schema', json_schema: { name: 'person', schema: person } },
      temperature: 0,
    });
    const choice = answer.choices[0]!;
    expect(choice.finish_reason).toBe('stop');
    const value = JSON.parse(choice.message.content!);
    expect(ajv.validate(person, value), ajv.errorsText()).toBe(true);
    expect(answer.usage!.completion_tokens).toBeGreaterThan(0);
  });

  it('json_object: an object', async () => {
    const answer = await openai.chat.completions.create({
      model: 'successor',
      messages: [{ role: 'user', content: 'a' }],
      response_format: { type: 'json_object' },
      temperature: 0,
      max_tokens: 200,
    });
    const value = JSON.parse(answer.choices[0]!.message.content!);
    expect(typeof value === 'object' && value !== null && !Array.isArray(value)).toBe(true);
  });

  it('a required tool call: arguments generated under the grammar of that tool\u2019s schema, streamed as deltas', async () => {
    const parameters = {
      type: 'object',
      properties: { city: { type: 'string', maxLength: 12 }, unit: { enum: ['c', 'f'] } },
      required: ['city', 'unit'],
    };
    const stream = openai.chat.completions.stream({
      model: 'successor',
      messages: [{ role: 'user', content: 'a' }],
      tools: [
        { type: 'function', function: { name: 'other', parameters: { type: 'object', properties: {} } } },
        { type: 'function', function: { name: 'get_weather', parameters } },
      ],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      temperature: 0,
    });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]!.finish_reason).toBe('tool_calls');
    const call = final.choices[0]!.message.tool_calls![0]!;
    if (call.type !== 'function') throw new Error('expected a function call');
    expect(call.function.name).toBe('get_weather');
    expect(ajv.validate(parameters, JSON.parse(call.function.arguments)), ajv.errorsText()).toBe(true);
  });
});
