/**
 * The `--batch` flags shared by `deployment text-generate(-stream)`, `complete` and `embed` (docs/batch.md), as
 * plain data: read for --help and completion, so nothing here may be expensive to import.
 */
import { longFlag, type OptionSpec, type OptionValues, optionKey, withoutOptions } from '../command.js';

export const BATCH_FLAG_SPECS = [
  {
    flags: '--batch <file.jsonl|->',
    description:
      'run every line of a JSONL file (- for stdin): {"input": …, "parameters"?: …, "id"?: …} or a JSON string; JSONL records out',
  },
  {
    flags: '--concurrency <n>',
    description: 'with --batch: requests in flight at once, 1 to 1024 (default 4); lowered on 429 and grown back',
  },
  {
    flags: '--resume <output.jsonl>',
    description: 'with --batch: skip lines with a result in this earlier output; results go to that file',
  },
  {
    flags: '--shard <K/N>',
    description: 'with --batch: run only lines n with (n - 1) mod N = K - 1 (a CI matrix of N machines)',
  },
  { flags: '--fail-fast [bool]', description: 'with --batch: stop at the first failed line; exit with its exit code' },
] as const satisfies readonly OptionSpec[];

/** What a command taking the flags above receives for them. */
export type BatchFlagOptions = OptionValues<typeof BATCH_FLAG_SPECS>;

/** The flags above other than --batch itself (commander key, flag): given without --batch they are a usage error. */
export const BATCH_ONLY_KEYS = withoutOptions(BATCH_FLAG_SPECS, '--batch').map(
  (o) => [optionKey(o.flags), longFlag(o.flags)] as const,
);
