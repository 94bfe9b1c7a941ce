import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * The provider's OpenAPI document (1.16.1, seed 002) is stored flattened onto one line, so it cannot be parsed as
 * YAML. Its schema sections are still regular: `name: type: T …` or `name: $ref: "…"` per property, then
 * `nullable: true`, `enum: […]`, `items: type: T` (or `$ref`), `minimum: N`, `maximum: N` before the next property,
 * and `required: - a - b`. Nesting is lost in the flattening. The contract tests read it with these helpers.
 */
const SEEDS = resolve(import.meta.dirname, '../../../shared/seeds');
const seedFile = readdirSync(SEEDS).find((f) => f.startsWith('002_') && f.endsWith('.txt'));
export const alephAlphaSeed = readFileSync(resolve(SEEDS, seedFile ?? '002_missing.txt'), 'utf8');

export interface SeedProperty {
  name: string;
  type?: string;
  ref?: string;
  nullable: boolean;
  enum?: string[];
  /** Arrays: the items' type or $ref. */
  items?: string;
  minimum?: number;
  maximum?: number;
}

/** The text from `from` up to the next `to`; throws when either is missing, so a changed seed fails loudly. */
export function seedSection(from: string, to: string): string {
  const start = alephAlphaSeed.indexOf(from);
  const end = alephAlphaSeed.indexOf(to, start);
  if (start < 0) throw new Error(`seed section ${from} not found`);
  if (end <= start) throw new Error(`seed section end ${to} not found after ${from}`);
  return alephAlphaSeed.slice(start, end);
}

export function seedProperties(text: string): SeedProperty[] {
  const body = text.slice(text.indexOf('properties: ') + 'properties: '.length);
  const matches = [...body.matchAll(/(\w+): (?:type: (\w+)|\$ref: "([^"]+)")/g)].filter((m) => m[1] !== 'items');
  return matches.map((m, i) => {
    const next = matches[i + 1];
    const segment = body.slice(m.index, next ? next.index : body.length);
    const p: SeedProperty = { name: m[1]!, nullable: /nullable: true/.test(segment) };
    if (m[2] !== undefined) p.type = m[2];
    if (m[3] !== undefined) p.ref = m[3];
    const items = /items: (?:type: (\w+)|\$ref: "([^"]+)")/.exec(segment);
    if (items) p.items = items[1] ?? items[2]!;
    const values = /enum: \[([^\]]*)\]/.exec(segment);
    if (values) p.enum = values[1]!.split(',').map((v) => v.trim().replace(/^"|"$/g, '')).filter((v) => v !== 'null');
    const minimum = /minimum: (\d+)/.exec(segment);
    if (minimum) p.minimum = Number(minimum[1]);
    const maximum = /maximum: (\d+)/.exec(segment);
    if (maximum) p.maximum = Number(maximum[1]);
    return p;
  });
}

export function seedRequired(text: string): string[] {
  return (/required: ((?:- \w+ ?)+)/.exec(text)?.[1] ?? '').split('-').map((s) => s.trim()).filter(Boolean);
}
