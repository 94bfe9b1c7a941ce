import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChatTool } from '../../src/contract/chat.js';
import { deterministicEngine } from '../../src/emulator/engine/deterministic.js';
import { createRng } from '../../src/emulator/engine/random.js';
import { type JsonSchema, schemaValue } from '../../src/emulator/engine/schema-value.js';
import { choicePieces, decideTurn, planTurn, type TurnRequest } from '../../src/emulator/engine/structured-answer.js';

// Formats are checked too (ajv knows none without ajv-formats, so the usual ones are declared here).
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addFormat('date-time', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
ajv.addFormat('date', /^\d{4}-\d{2}-\d{2}$/);
ajv.addFormat('email', /^[^@\s]+@[^@\s]+\.[a-z]+$/);
ajv.addFormat('uri', /^https?:\/\/\S+$/);
ajv.addFormat('uuid', /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);

function valid(schema: JsonSchema, value: unknown): string | true {
  const check = ajv.compile(schema as object);
  return check(value) ? true : ajv.errorsText(check.errors);
}

/** Satisfiable schemas built from the keywords the generator claims to cover. */
const leaf: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc
    .tuple(fc.nat(8), fc.nat(20), fc.option(fc.constantFrom('date-time', 'date', 'email', 'uri', 'uuid')))
    .map(([min, extra, format]) => ({
      type: 'string',
      minLength: min,
      maxLength: min + extra + (format ? 60 : 0),
      ...(format ? { format } : {}),
    })),
  fc.constantFrom(
    { type: 'string', pattern: '^[a-z]{3}-\\d{2,4}$' },
    { type: 'string', pattern: '^(red|green|blue)$' },
    { type: 'string', pattern: '[A-Z][a-z]+' },
    { type: 'string', pattern: '^\\+?[0-9]{7,12}$' },
  ),
  fc
    .tuple(fc.integer({ min: -50, max: 50 }), fc.nat(100), fc.boolean(), fc.option(fc.integer({ min: 2, max: 7 })))
    .map(([lo, span, exclusive, multipleOf]) =>
      exclusive
        ? { type: 'integer', exclusiveMinimum: lo, exclusiveMaximum: lo + span + 2 * (multipleOf ?? 1) + 2 }
        : {
            type: 'integer',
            minimum: lo,
            maximum: lo + span + (multipleOf ?? 0),
            ...(multipleOf ? { multipleOf } : {}),
          },
    ),
  fc
    .tuple(fc.double({ min: -1000, max: 1000, noNaN: true }), fc.double({ min: 0.01, max: 100, noNaN: true }))
    .map(([lo, span]) => ({ type: 'number', minimum: lo, exclusiveMaximum: lo + span })),
  fc.constant({ type: 'boolean' }),
  fc.constant({ type: 'null' }),
  fc.constant({ type: ['string', 'null'] }),
  fc
    .uniqueArray(fc.oneof(fc.string({ maxLength: 6 }), fc.integer()), { minLength: 1, maxLength: 5 })
    .map((e) => ({ enum: e })),
  fc.jsonValue({ maxDepth: 2 }).map((v) => ({ const: v })),
);

const schemaArb: fc.Arbitrary<Record<string, unknown>> = fc.letrec<{ node: Record<string, unknown> }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc
      .tuple(fc.dictionary(fc.stringMatching(/^[a-z_]{1,8}$/), tie('node'), { maxKeys: 4 }), fc.boolean(), fc.boolean())
      .map(([properties, allRequired, closed]) => ({
        type: 'object',
        properties,
        required: allRequired ? Object.keys(properties) : Object.keys(properties).slice(0, 1),
        ...(closed ? { additionalProperties: false } : {}),
      })),
    fc
      .tuple(tie('node'), fc.nat(3), fc.nat(3))
      .map(([items, min, extra]) => ({ type: 'array', items, minItems: min, maxItems: min + extra })),
    fc.tuple(tie('node'), tie('node')).map(([a, b]) => ({ anyOf: [a, b] })),
    fc.tuple(tie('node'), leaf).map(([a, b]) => ({ oneOf: [a, { ...b, not: a }] })),
  ),
})).node;

/** A schema with a $ref into its $defs (references resolve against the root). */
const schemaArbWithRef = fc.oneof(
  schemaArb,
  fc.tuple(schemaArb, schemaArb).map(([target, other]) => ({
    $defs: { target },
    type: 'object',
    properties: { ref: { $ref: '#/$defs/target' }, other },
    required: ['ref'],
  })),
);

describe('schemaValue: a value the schema accepts', () => {
  it('holds for generated schemas (checked with ajv)', () => {
    fc.assert(
      fc.property(schemaArbWithRef, fc.integer(), (schema, seed) => {
        const value = schemaValue(schema, createRng(seed));
        expect(valid(schema, value)).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it('is the same value for the same schema and seed', () => {
    fc.assert(
      fc.property(schemaArb, fc.integer(), (schema, seed) => {
        expect(schemaValue(schema, createRng(seed))).toEqual(schemaValue(schema, createRng(seed)));
      }),
      { numRuns: 100 },
    );
  });

  it.each<[string, Record<string, unknown>]>([
    [
      'a tool schema with nested objects, enums and a $ref',
      {
        type: 'object',
        $defs: { unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
        properties: {
          location: { type: 'string', description: 'City' },
          unit: { $ref: '#/$defs/unit' },
          days: { type: 'integer', minimum: 1, maximum: 14 },
          where: {
            type: 'object',
            properties: { lat: { type: 'number', minimum: -90, maximum: 90 } },
            required: ['lat'],
            additionalProperties: false,
          },
        },
        required: ['location', 'unit', 'days', 'where'],
        additionalProperties: false,
      },
    ],
    [
      'zod-style recursive definitions',
      {
        type: 'object',
        definitions: {
          node: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/definitions/node' } } } },
        },
        properties: { tree: { $ref: '#/definitions/node' } },
        required: ['tree'],
      },
    ],
    [
      'allOf merged',
      {
        allOf: [
          { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
          { required: ['b'], properties: { b: { const: 1 } } },
        ],
      },
    ],
    ['uniqueItems from an enum', { type: 'array', items: { enum: ['x', 'y', 'z'] }, minItems: 3, uniqueItems: true }],
    ['minProperties', { type: 'object', minProperties: 3, additionalProperties: { type: 'integer' } }],
    ['prefixItems', { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false }],
  ])('%s', (_name, schema) => {
    for (let seed = 0; seed < 50; seed++) expect(valid(schema, schemaValue(schema, createRng(seed)))).toBe(true);
  });
});

const weather: ChatTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};
const time: ChatTool = {
  type: 'function',
  function: { name: 'get_time', parameters: { type: 'object', properties: {} } },
};

function turn(text: string, extra: Partial<TurnRequest> = {}): TurnRequest {
  return { messages: [{ role: 'user', content: text }], sampling: {}, tools: [weather, time], ...extra };
}

describe('decideTurn', () => {
  it.each<[string, TurnRequest, string[] | 'text' | 'json']>([
    ['auto, no tool named: text', turn('hello there'), 'text'],
    ['auto, a tool named: that call', turn('please call get_time now'), ['get_time']],
    ['auto, two named: both', turn('get_weather and get_time'), ['get_weather', 'get_time']],
    [
      'auto, two named, parallel off: the first',
      turn('get_weather and get_time', { parallel_tool_calls: false }),
      ['get_weather'],
    ],
    ['a name inside a longer word does not count', turn('my_get_time_zone'), 'text'],
    ['required, none named: the first tool', turn('hi', { tool_choice: 'required' }), ['get_weather']],
    ['a named function', turn('hi', { tool_choice: { function: 'get_time' } }), ['get_time']],
    ['none: text even when named', turn('get_time', { tool_choice: 'none' }), 'text'],
    [
      'auto after a tool result: text',
      {
        ...turn(''),
        messages: [
          { role: 'user', content: 'get_time please' },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_time', arguments: '{}' } }],
          },
          { role: 'tool', content: '12:00', tool_call_id: 'c1' },
        ],
      },
      'text',
    ],
    ['json_object without calls', turn('hi', { response_format: { type: 'json_object' } }), 'json'],
  ])('%s', (_name, request, expected) => {
    const d = decideTurn(request);
    if (expected === 'text' || expected === 'json') expect(d.kind).toBe(expected);
    else expect(d.kind === 'tool_calls' ? d.tools.map((t) => t.function.name) : d.kind).toEqual(expected);
  });
});

describe('planTurn with the deterministic engine', () => {
  const engine = deterministicEngine();

  it('answers tool calls whose arguments validate, the same for the same request', async () => {
    const request = turn('what does get_weather say?', { sampling: { seed: 7 } });
    const plan = await planTurn(engine, request, { n: 2 });
    expect(plan.kind).toBe('tool_calls');
    if (plan.kind === 'text') return;
    for (const choice of plan.choices) {
      expect(choice.finish_reason).toBe('tool_calls');
      const call = choice.tool_calls[0]!;
      expect(call.id).toMatch(/^call_[A-Za-z0-9]{24}$/);
      expect(valid(weather.function.parameters!, JSON.parse(call.function.arguments))).toBe(true);
    }
    expect(plan.prompt_tokens).toBeGreaterThan(0);
    expect(await planTurn(engine, request, { n: 2 })).toEqual(plan);
  });

  it('answers JSON for the schema, and streams it in pieces that add up', async () => {
    const schema = { type: 'object', properties: { n: { type: 'integer', minimum: 3, maximum: 3 } }, required: ['n'] };
    const plan = await planTurn(engine, {
      messages: [{ role: 'user', content: 'a number' }],
      sampling: {},
      response_format: { type: 'json_schema', json_schema: { name: 'x', schema } },
    });
    if (plan.kind === 'text') throw new Error('expected JSON');
    expect(JSON.parse(plan.choices[0]!.content)).toEqual({ n: 3 });
    const pieces = [...choicePieces(plan.choices[0]!)];
    expect(pieces.map((p) => (p.type === 'text' ? p.text : '')).join('')).toBe(plan.choices[0]!.content);
  });

  it('streams a call as id and name first, then argument fragments', async () => {
    const plan = await planTurn(engine, turn('get_weather'));
    if (plan.kind === 'text') throw new Error('expected calls');
    const pieces = [...choicePieces(plan.choices[0]!)];
    expect(pieces[0]).toEqual({
      type: 'tool_call',
      delta: { index: 0, id: plan.choices[0]!.tool_calls[0]!.id, name: 'get_weather', arguments: '' },
    });
    const args = pieces
      .slice(1)
      .map((p) => (p.type === 'tool_call' ? p.delta.arguments : ''))
      .join('');
    expect(args).toBe(plan.choices[0]!.tool_calls[0]!.function.arguments);
  });
});
