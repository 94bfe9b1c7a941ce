/**
 * Numbers in a service's answer the CLI cannot pass on. JSON.parse turns `1e400` into Infinity, which `-o json`
 * then writes as `null` and `-o yaml` as `.inf`; a token count of -3 or 2.5 would be summed and shown as if it were
 * one. Both make the answer unusable (UnexpectedAnswer, exit 4; inside a stream, a malformed event, exit 6), and the
 * message names the field. Checked where an answer becomes the canonical result (src/call/answer.ts) and where
 * a stream event becomes JSON (profiles/common/json-events.ts), for every provider at once.
 *
 * A leaf module: adapters and the core both import it.
 */

/** Keys whose number is a count of something: `generated_token_count`, `prompt_tokens`, `num_tokens_generated`, `rank`. */
const COUNT_KEY = /(?:^|_)(?:count|tokens|rank)$|^num_tokens(?:_|$)/;

/**
 * What is wrong with the first unusable number in `value` — `"usage.completion_tokens" is -3, not a count (a
 * whole number, 0 or more)` — or undefined when every number is fine.
 */
export function answerNumberProblem(value: unknown): string | undefined {
  // Every event of a stream is checked: a walk that allocates nothing answers the common case, and only an answer
  // with a problem is walked again to name the field.
  if (numbersFine(value, undefined)) return undefined;
  const path: Array<string | number> = [];
  const visit = (v: unknown, key: string | number | undefined): string | undefined => {
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return `${fieldName(path)} is not a finite number (too large for one)`;
      if (typeof key === 'string' && COUNT_KEY.test(key) && !(Number.isInteger(v) && v >= 0))
        return `${fieldName(path)} is ${v}, not a count (a whole number, 0 or more)`;
      return undefined;
    }
    if (typeof v !== 'object' || v === null) return undefined;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        path.push(i);
        const problem = visit(v[i], key);
        path.pop();
        if (problem !== undefined) return problem;
      }
      return undefined;
    }
    for (const k of Object.keys(v)) {
      path.push(k);
      const problem = visit((v as Record<string, unknown>)[k], k);
      path.pop();
      if (problem !== undefined) return problem;
    }
    return undefined;
  };
  return visit(value, undefined);
}

/** Keys seen so far and whether they name a count: a stream repeats the same few keys in every event. */
const countKeys = new Map<string, boolean>();
const COUNT_KEYS_KEPT = 512;

function isCountKey(key: string): boolean {
  let known = countKeys.get(key);
  if (known === undefined) {
    known = COUNT_KEY.test(key);
    // Keys come from the service: only so many are remembered.
    if (countKeys.size < COUNT_KEYS_KEPT) countKeys.set(key, known);
  }
  return known;
}

/** Whether every number in `v` is usable (the same rules as the walk in answerNumberProblem, without the path). */
function numbersFine(v: unknown, key: string | number | undefined): boolean {
  if (typeof v === 'number')
    return Number.isFinite(v) && (typeof key !== 'string' || !isCountKey(key) || (Number.isInteger(v) && v >= 0));
  if (typeof v !== 'object' || v === null) return true;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (!numbersFine(v[i], key)) return false;
    return true;
  }
  // for…in with an own-key test: the same keys as Object.keys, without an array per object.
  for (const k in v) {
    if (!Object.hasOwn(v, k)) continue;
    if (!numbersFine((v as Record<string, unknown>)[k], k)) return false;
  }
  return true;
}

/** `results[0].generated_token_count`, quoted. */
function fieldName(path: ReadonlyArray<string | number>): string {
  let out = '';
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : out === '' ? part : `.${part}`;
  return `"${out === '' ? '(the answer)' : out}"`;
}
