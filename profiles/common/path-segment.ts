import { UsageError } from '../../src/contract/errors.js';

/**
 * A user-given name (deployment, model, version) as one URL path segment. `.` and `..` are refused: URL parsing
 * treats them as "this" and "parent" directory, so the request would go elsewhere.
 */
export function pathSegment(value: string, what: string): string {
  if (value === '.' || value === '..')
    throw new UsageError(`${what} "${value}" is not a usable name: it would change the request's path`);
  return encodeURIComponent(value);
}
