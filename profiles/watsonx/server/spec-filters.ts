/**
 * The `filters` query parameter of `GET /ml/v1/foundation_model_specs`, as the service documents it (and IBM's SDKs
 * repeat it): `tfilter[,tfilter][:(or|and)]`, a tfilter being `filter` or `!filter` (absence), a filter one of
 * `modelid_*`, `provider_*`, `source_*`, `input_tier_*`, `output_tier_*`, `tier_*` (either tier), `task_*`,
 * `lifecycle_*` (the phase in force today) and `function_*`. Several filters combine with `and` unless the pattern
 * ends in `:or`.
 */
import type { ModelFacts } from './catalog-data.js';

type Test = (m: ModelFacts, today: string) => boolean;

const same = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

/** Longer prefixes first, so `input_tier_` is not read as `tier_`. */
const KINDS: ReadonlyArray<[string, (value: string) => Test]> = [
  ['modelid_', (v) => (m) => m.id === v],
  ['provider_', (v) => (m) => same(m.provider, v)],
  ['source_', (v) => (m) => same(m.source, v)],
  ['input_tier_', (v) => (m) => same(m.tier, v)],
  ['output_tier_', (v) => (m) => same(m.tier, v)],
  ['tier_', (v) => (m) => same(m.tier, v)],
  ['task_', (v) => (m) => (m.tasks ?? []).some((t) => t === v)],
  ['lifecycle_', (v) => (m, today) => currentPhase(m, today) === v],
  ['function_', (v) => (m) => m.functions.some((f) => f === v)],
];

/** The phase in force on `today` (YYYY-MM-DD): the last one that has started. */
export function currentPhase(m: ModelFacts, today: string): string | undefined {
  let current: string | undefined;
  for (const p of m.lifecycle) if (p.since <= today) current = p.id;
  return current;
}

export type FilterParse = { ok: true; test: Test } | { ok: false; message: string };

export function parseSpecFilters(pattern: string): FilterParse {
  const bad = (why: string): FilterParse => ({
    ok: false,
    message: `Invalid value '${pattern}' for query parameter 'filters': ${why}`,
  });
  let body = pattern;
  let mode: 'and' | 'or' = 'and';
  const colon = pattern.lastIndexOf(':');
  if (colon >= 0) {
    const suffix = pattern.slice(colon + 1);
    if (suffix !== 'and' && suffix !== 'or') return bad(`expected ":and" or ":or" at the end, got ":${suffix}"`);
    mode = suffix;
    body = pattern.slice(0, colon);
  }
  const tests: Test[] = [];
  for (const part of body.split(',')) {
    const negated = part.startsWith('!');
    const filter = negated ? part.slice(1) : part;
    const kind = KINDS.find(([prefix]) => filter.startsWith(prefix) && filter.length > prefix.length);
    if (!kind) {
      return bad(
        `'${part}' is not a filter; expected one of ${KINDS.map(([p]) => `${p}*`).join(', ')}, optionally preceded by '!'`,
      );
    }
    const test = kind[1](filter.slice(kind[0].length));
    tests.push(negated ? (m, today) => !test(m, today) : test);
  }
  return {
    ok: true,
    test: mode === 'and' ? (m, t) => tests.every((f) => f(m, t)) : (m, t) => tests.some((f) => f(m, t)),
  };
}
