import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ContractProperty } from '../contract/aleph-alpha-contract.js';

/**
 * Reading the provider's OpenAPI document (1.16.1, the seed `002_*.txt` beside the repository) for the cross-check.
 * It is stored flattened onto one line, so it cannot be parsed as YAML. Its schema sections are still regular:
 * `name: type: T …` or `name: $ref: "…"` per property, then `nullable: true`, `enum: […]`, `format: F`,
 * `items: type: T` (or `$ref`), `minimum: N`, `maximum: N` before the next property, and `required: - a - b`. Nesting
 * is lost in the flattening: a nested object's properties follow their parent's name.
 */
export function readAlephAlphaSeed(seeds: string): string {
  const file = readdirSync(seeds).find((f) => f.startsWith('002_') && f.endsWith('.txt'));
  if (file === undefined) throw new Error(`no 002_*.txt seed in ${seeds}`);
  return readFileSync(resolve(seeds, file), 'utf8');
}

/** The text from `from` up to the next `to`; throws when either is missing, so a changed seed fails loudly. */
export function seedSection(seed: string, from: string, to: string): string {
  const start = seed.indexOf(from);
  const end = seed.indexOf(to, start + 1);
  if (start < 0) throw new Error(`seed section ${from} not found`);
  if (end <= start) throw new Error(`seed section end ${to} not found after ${from}`);
  return seed.slice(start, end);
}

/**
 * Every property of a section, nested ones included, in the document's order. A nested property named `type` comes
 * out of the flattening as `properties: type: type: T`; it is read as the property `type` of type T.
 */
export function seedProperties(text: string): ContractProperty[] {
  const body = text
    .slice(text.indexOf('properties: ') + 'properties: '.length)
    .replace(/properties: type: type: /g, 'properties: | type: type: ');
  const matches = [...body.matchAll(/(\w+): (?:type: (\w+)|\$ref: "([^"]+)")/g)].filter((m) => m[1] !== 'items');
  return matches.map((m, i) => {
    const next = matches[i + 1];
    const segment = body.slice(m.index, next ? next.index : body.length);
    const p: ContractProperty = { name: m[1]!, nullable: /nullable: true/.test(segment) };
    if (m[2] !== undefined) p.type = m[2];
    if (m[3] !== undefined) p.ref = m[3];
    const items = /items: (?:type: (\w+)|\$ref: "([^"]+)")/.exec(segment);
    if (items) p.items = items[1] ?? items[2]!;
    const values = /enum: \[([^\]]*)\]/.exec(segment);
    if (values)
      p.enum = values[1]!
        .split(',')
        .map((v) => v.trim().replace(/^"|"$/g, ''))
        .filter((v) => v !== 'null');
    const minimum = /minimum: (\d+)/.exec(segment);
    if (minimum) p.minimum = Number(minimum[1]);
    const maximum = /maximum: (\d+)/.exec(segment);
    if (maximum) p.maximum = Number(maximum[1]);
    return p;
  });
}

/** Every `required:` list of a section, nested ones included, in the document's order. */
export function seedRequiredLists(text: string): string[][] {
  return [...text.matchAll(/required: ((?:- \w+ ?)+)/g)].map((m) =>
    m[1]!
      .split('-')
      .map((s) => s.trim())
      .filter(Boolean),
  );
}

/** The `example:` of a section (up to its `properties:`), quotes removed, or '' without one. */
export function seedExample(text: string): string {
  const start = text.indexOf('example: ');
  const end = text.indexOf(' properties: ');
  if (start < 0 || (end >= 0 && end < start)) return '';
  return text.slice(start, end < 0 ? undefined : end).replace(/"/g, '');
}

/** The text of one path's operations: from `PATH: METHOD:` up to the next path. */
export function seedPath(seed: string, path: string, method: string): string {
  const start = seed.indexOf(` ${path}: ${method}:`);
  if (start < 0) throw new Error(`no ${method.toUpperCase()} ${path} in the seed`);
  const rest = seed.slice(start + 1);
  const next = / \/[\w/{}]*: (?:get|post|put|patch|delete):/.exec(rest);
  return next ? rest.slice(0, next.index) : rest;
}
