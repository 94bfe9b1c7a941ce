/**
 * `--match RULE` (repeatable): how a cassette's key rules (key.ts) are widened or narrowed. docs/cassettes.md lists
 * the rules; every rule is checked here, and a bad one is a usage error naming it.
 *
 *   ignore=PATH      the body field at PATH does not count (`parameters.seed`, `messages.*.name`, `input.0`);
 *                    `ignore=query.NAME` drops a query parameter
 *   keep=PATH        a field the protocol's defaults drop counts after all (`keep=project_id`, `keep=query.version`)
 *   +query           every query parameter counts, the version dates too
 *   +header=NAME     the request header NAME counts (never a credential or cookie)
 *   -body            the body does not count at all (method, path and query only)
 */
import { UsageError } from '../contract/errors.js';

export interface MatchRules {
  /** Body paths (or `query`, NAME) left out of the key. */
  ignore: string[][];
  /** Default-volatile paths (or `query`, NAME) kept in it. */
  keep: string[][];
  allQuery: boolean;
  /** Lower-case header names that count. */
  headers: string[];
  body: boolean;
}

export const DEFAULT_MATCH: MatchRules = { ignore: [], keep: [], allQuery: false, headers: [], body: true };

/** Headers whose value is a credential or per-client noise: never part of a key, never stored. */
export const NEVER_KEYED_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'proxy-authorization',
  'api-key',
  'x-api-key',
  'cookie',
  'set-cookie',
]);

function parsePath(text: string, rule: string): string[] {
  const path = text.replace(/^\$\.?/, '').replace(/\[(\d+|\*)\]/g, '.$1');
  const segments = path.split('.');
  if (path === '' || segments.some((s) => s === ''))
    throw new UsageError(
      `--match ${rule}: "${text}" is not a field path (write it as parameters.seed or messages.*.name)`,
    );
  return segments;
}

export function parseMatchRules(rules: readonly string[] | undefined): MatchRules {
  const out: MatchRules = { ignore: [], keep: [], allQuery: false, headers: [], body: true };
  for (const rule of rules ?? []) {
    for (const part of rule.split(',').map((p) => p.trim())) {
      if (part === '') continue;
      if (part === '+query') out.allQuery = true;
      else if (part === '-body') out.body = false;
      else if (part.startsWith('ignore=')) out.ignore.push(parsePath(part.slice('ignore='.length), part));
      else if (part.startsWith('keep=')) out.keep.push(parsePath(part.slice('keep='.length), part));
      else if (part.startsWith('+header=')) {
        const name = part.slice('+header='.length).toLowerCase();
        if (!/^[a-z0-9!#$%&'*+.^_`|~-]+$/.test(name))
          throw new UsageError(`--match ${part}: "${name}" is not a header name`);
        if (NEVER_KEYED_HEADERS.has(name))
          throw new UsageError(`--match ${part}: ${name} carries a credential and is never stored in a cassette`);
        out.headers.push(name);
      } else
        throw new UsageError(`--match: unknown rule "${part}"`, {
          hint: 'rules: ignore=PATH, keep=PATH, +query, +header=NAME, -body (docs/cassettes.md)',
        });
    }
  }
  return out;
}
