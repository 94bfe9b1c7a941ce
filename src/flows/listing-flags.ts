/** The query parameters of the paging options (src/options/listing-flag-specs.ts): `limit` 1 to 200, as the service takes it. */
import type { ListingFlagOptions } from '../options/listing-flag-specs.js';
import { parseBooleanFlag } from '../options/flag-values.js';
import { parseIntegerFlag } from '../options/integer-flag.js';

/** The most the service lists in one page. */
export const MAX_LIMIT = 200;

export function listingQuery(options: ListingFlagOptions): { query: Record<string, string>; allPages: boolean } {
  const query: Record<string, string> = {};
  if (options.start !== undefined) query.start = options.start;
  if (options.limit !== undefined)
    query.limit = String(parseIntegerFlag('--limit', options.limit, { min: 1, max: MAX_LIMIT }));
  return { query, allPages: parseBooleanFlag('--all-pages', options.allPages) === true };
}
