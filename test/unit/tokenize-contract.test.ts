import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  alephAlphaDetokenizationRequestSchema,
  alephAlphaDetokenizationResponseSchema,
  alephAlphaTokenizationRequestSchema,
  alephAlphaTokenizationResponseSchema,
} from '../contract/tokenize-schemas.js';

import {
  ALEPH_ALPHA_SCHEMAS,
  type FieldFacts,
  requiredOf,
  type SchemaFacts,
} from '../contract/aleph-alpha-contract.js';

/**
 * The project's record of the Aleph Alpha OpenAPI document (1.16.1, aleph-alpha-contract.ts) names the tokenization
 * fields with their types (lists with their items' type) and the required lists; the hand-written schemas must name
 * exactly those fields with those types.
 */
interface FieldList {
  fields: Record<string, string>;
  required: string[];
}

function typeName(f: FieldFacts): string {
  return f.items?.type ? `${f.type} of ${f.items.type}` : String(f.type);
}

function contractFields(name: keyof typeof ALEPH_ALPHA_SCHEMAS): FieldList {
  const facts: SchemaFacts = ALEPH_ALPHA_SCHEMAS[name];
  const fields = Object.fromEntries(Object.entries(facts.properties ?? {}).map(([field, f]) => [field, typeName(f)]));
  return { fields, required: requiredOf(facts) };
}

function zodFields(schema: z.ZodObject): FieldList {
  const fields: Record<string, string> = {};
  const required: string[] = [];
  for (const [name, field] of Object.entries(schema.shape) as [string, z.ZodType][]) {
    const optional = field.safeParse(undefined).success;
    if (!optional) required.push(name);
    const json = JSON.stringify((field as { toJSONSchema(): unknown }).toJSONSchema());
    const t = JSON.parse(json) as {
      type?: string;
      items?: { type?: string };
      anyOf?: Array<{ type?: string; items?: { type?: string } }>;
    };
    const shape = t.type ? t : ((t.anyOf ?? []).find((a) => a.type !== undefined) ?? {});
    const type = shape.type === 'integer' ? 'integer' : shape.type;
    fields[name] = shape.items?.type ? `${type} of ${shape.items.type}` : String(type);
  }
  return { fields, required };
}

describe("Aleph Alpha tokenization schemas name exactly the document's fields", () => {
  // The document's answers list no required fields; `result` is required here because every detokenize answer has it.
  it.each<[keyof typeof ALEPH_ALPHA_SCHEMAS, z.ZodObject, string[] | undefined]>([
    ['TokenizationRequest', alephAlphaTokenizationRequestSchema, undefined],
    ['TokenizationResponse', alephAlphaTokenizationResponseSchema, undefined],
    ['DetokenizationRequest', alephAlphaDetokenizationRequestSchema, undefined],
    ['DetokenizationResponse', alephAlphaDetokenizationResponseSchema, ['result']],
  ])('%s', (name, schema, requiredHere) => {
    const documented = contractFields(name);
    const ours = zodFields(schema);
    expect(ours.fields).toStrictEqual(documented.fields);
    expect(ours.required.sort()).toStrictEqual((requiredHere ?? documented.required).sort());
  });
});
