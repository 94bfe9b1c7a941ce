/**
 * The `--batch` flags shared by `deployment text-generate(-stream)`, `complete` and `embed` (docs/batch.md), as
 * plain data: read for --help and completion, so nothing here may be expensive to import.
 */
import type { OptionSpec } from '../command.js';

export const BATCH_FLAG_SPECS: OptionSpec[] = [
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
];

/** The commander keys of the flags above: given without --batch they are a usage error. */
export const BATCH_ONLY_KEYS = [
  ['concurrency', '--concurrency'],
  ['resume', '--resume'],
  ['shard', '--shard'],
  ['failFast', '--fail-fast'],
] as const;
