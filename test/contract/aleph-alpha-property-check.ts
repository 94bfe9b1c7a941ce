/** Checks a zod schema's property against the contract's record of it (aleph-alpha-contract.ts): type, nullability, enum, range. */
import { expect } from 'vitest';
import type { ZodType } from 'zod';
import type { ContractProperty } from './aleph-alpha-contract.js';

export function shapeOf(schema: unknown): Record<string, ZodType> {
  return (schema as { shape: Record<string, ZodType> }).shape;
}

/** [a value of the type, a value of another type] */
export const SAMPLES: Record<string, [unknown, unknown]> = {
  integer: [3, 1.5],
  number: [0.5, 'x'],
  boolean: [true, 'yes'],
  string: ['x', 3],
  object: [{}, 'x'],
};

const REF_SAMPLES: Record<string, unknown> = {
  '#/components/schemas/Hosting': 'aleph-alpha',
  '#/components/schemas/Prompt': 'An apple a day',
  '#/components/schemas/OptimizedPrompt': [{ type: 'text', data: 'An apple a day' }],
  '#/components/schemas/Document': { text: 'Andreas likes Pizza.' },
  '#/components/schemas/MultimodalPrompt': [{ type: 'text', data: 'An apple a day' }],
};

function sampleOf(p: ContractProperty): [unknown, unknown] {
  if (p.ref !== undefined) return [REF_SAMPLES[p.ref], 42];
  if (p.enum) return [p.enum[0], 'not-one-of-them'];
  if (p.type === 'array') return [[REF_SAMPLES[p.items ?? ''] ?? SAMPLES[p.items ?? 'string']![0]], 'x'];
  return SAMPLES[p.type!]!;
}

export function checkProperty(schema: ZodType, p: ContractProperty, where: string): void {
  const [good, bad] = sampleOf(p);
  expect(schema.safeParse(good).success, `${where}.${p.name} accepts ${JSON.stringify(good)}`).toBe(true);
  expect(schema.safeParse(bad).success, `${where}.${p.name} rejects ${JSON.stringify(bad)}`).toBe(false);
  const nullable = p.nullable || p.ref === '#/components/schemas/Hosting';
  expect(schema.safeParse(null).success, `${where}.${p.name} nullable: ${nullable}`).toBe(nullable);
  for (const v of p.enum ?? []) expect(schema.safeParse(v).success, `${where}.${p.name} accepts ${v}`).toBe(true);
  if (p.minimum !== undefined)
    expect(schema.safeParse(p.minimum - 1).success, `${where}.${p.name} rejects less than its minimum`).toBe(false);
  if (p.maximum !== undefined) {
    expect(schema.safeParse(p.maximum).success, `${where}.${p.name} accepts its maximum`).toBe(true);
    expect(schema.safeParse(p.maximum + 1).success, `${where}.${p.name} rejects more than its maximum`).toBe(false);
  }
}
