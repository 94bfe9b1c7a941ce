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

/** `results[0].generated_token_count`, quoted. */
function fieldName(path: ReadonlyArray<string | number>): string {
  let out = '';
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : out === '' ? part : `.${part}`;
  return `"${out === '' ? '(the answer)' : out}"`;
}
