import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  alephAlphaDetokenizationRequestSchema,
  alephAlphaDetokenizationResponseSchema,
  alephAlphaTokenizationRequestSchema,
  alephAlphaTokenizationResponseSchema,
} from '../contract/tokenize-schemas.js';

/**
 * The Aleph Alpha seed (OpenAPI 1.16.1, flattened onto one line) names the tokenization fields as
 * `name: type: T` under `properties:`, with `items: type: T` for lists and a `required: - a - b` list; the hand-written
 * schemas must name exactly those fields with those types.
 */
const SEEDS = resolve(import.meta.dirname, '../../../shared/seeds');
const seedFile = readdirSync(SEEDS).find((f) => f.startsWith('002_') && f.endsWith('.txt'));
const seed = readFileSync(resolve(SEEDS, seedFile ?? '002_missing.txt'), 'utf8');

interface SeedSchema {
  fields: Record<string, string>;
  required: string[];
}

function seedSchema(name: string, next: string): SeedSchema {
  const start = seed.indexOf(`${name}: type: object`);
  const end = seed.indexOf(`${next}:`, start + 1);
  expect(start, name).toBeGreaterThanOrEqual(0);
  const text = seed.slice(start, end);
  const props = text.slice(text.indexOf('properties: ') + 'properties: '.length);
  const fields: Record<string, string> = {};
  for (const m of props.matchAll(/(\w+): type: (\w+)(?: items: type: (\w+))?/g)) {
    if (m[1] === 'items') continue;
    fields[m[1]!] = m[3] ? `${m[2]} of ${m[3]}` : m[2]!;
  }
  const required = (/required: ((?:- \w+ ?)+)/.exec(text)?.[1] ?? '').split('-').map((s) => s.trim()).filter(Boolean);
  return { fields, required };
}

function zodFields(schema: z.ZodObject): SeedSchema {
  const fields: Record<string, string> = {};
  const required: string[] = [];
  for (const [name, field] of Object.entries(schema.shape) as [string, z.ZodType][]) {
    const optional = field.safeParse(undefined).success;
    if (!optional) required.push(name);
    const json = JSON.stringify((field as { toJSONSchema(): unknown }).toJSONSchema());
    const t = JSON.parse(json) as { type?: string; items?: { type?: string }; anyOf?: Array<{ type?: string; items?: { type?: string } }> };
    const shape = t.type ? t : (t.anyOf ?? []).find((a) => a.type !== undefined) ?? {};
    const type = shape.type === 'integer' ? 'integer' : shape.type;
    fields[name] = shape.items?.type ? `${type} of ${shape.items.type}` : String(type);
  }
  return { fields, required };
}

describe('Aleph Alpha tokenization schemas name exactly the seed\'s fields', () => {
  // The seed's answers list no required fields; `result` is required here because every detokenize answer has it.
  it.each<[string, string, z.ZodObject, string[] | undefined]>([
    ['TokenizationRequest', 'TokenizationResponse', alephAlphaTokenizationRequestSchema, undefined],
    ['TokenizationResponse', 'DetokenizationRequest', alephAlphaTokenizationResponseSchema, undefined],
    ['DetokenizationRequest', 'DetokenizationResponse', alephAlphaDetokenizationRequestSchema, undefined],
    ['DetokenizationResponse', 'RecentRequestsResponse', alephAlphaDetokenizationResponseSchema, ['result']],
  ])('%s', (name, next, schema, requiredHere) => {
    const fromSeed = seedSchema(name, next);
    const ours = zodFields(schema);
    expect(ours.fields).toStrictEqual(fromSeed.fields);
    expect(ours.required.sort()).toStrictEqual((requiredHere ?? fromSeed.required).sort());
  });
});
