/**
 * The paging options of cpd-cli's `foundation-model list-models|list-tasks` (`--start`, `--limit`, `--all-pages`), as
 * plain data (loaded for --help and completion); src/flows/listing-flags.ts reads them.
 */
import type { OptionSpec, OptionValues } from '../command.js';

export const LISTING_FLAG_SPECS = [
  { flags: '--start <token>', description: "the page to start at: a token from the service's next link" },
  { flags: '--limit <n>', description: 'how many to list per page, 1 to 200 (default 100)' },
  { flags: '--all-pages [bool]', description: 'follow the next links and list every page' },
] as const satisfies readonly OptionSpec[];

export type ListingFlagOptions = OptionValues<typeof LISTING_FLAG_SPECS>;
