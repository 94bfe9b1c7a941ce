/**
 * The state file of a provider batch job (`--state FILE`, default `INPUT.batch.json`): which input was submitted
 * (its path, size and SHA-256), to which profile, how it was split (each part's line range), and what the service
 * said about each part (file id, batch id, status, counts, output and error files). Written after every step
 * through a temporary file and a rename, 0600 (it names the account's batches), so a kill at any moment leaves the
 * last complete state and `wait`/`results` carry on from it; a second `submit` of an input whose state holds batches
 * refuses instead of paying twice.
 */
import { readFile } from 'node:fs/promises';
import type { BatchEndpoint, BatchRequestCounts, BatchScope } from '../../contract/adapter.js';
import type { ProviderKind } from '../../contract/profile.js';
import { UsageError } from '../../contract/errors.js';

export interface PartState {
  /** From 1. */
  index: number;
  /** The input's line numbers this part holds (blank lines are in the range but not in the part). */
  firstLine: number;
  lastLine: number;
  lines: number;
  bytes: number;
  inputFileId?: string;
  batchId?: string;
  status?: string;
  counts?: BatchRequestCounts;
  outputFileId?: string;
  errorFileId?: string;
  /** When its output and error files were last written as records. */
  fetchedAt?: string;
}

export interface JobState {
  kind: 'textgen-provider-batch';
  version: 1;
  profile: string;
  provider: ProviderKind;
  /** Absolute path of the input as submitted. */
  input: string;
  inputBytes: number;
  inputSha256: string;
  endpoint: BatchEndpoint;
  model: string;
  window: string;
  metadata?: Record<string, string>;
  scope?: BatchScope;
  createdAt: string;
  parts: PartState[];
}

/** `INPUT.batch.json`, next to the input. */
export function defaultStatePath(input: string): string {
  return `${input}.batch.json`;
}

/** The state, or undefined when the file does not exist. */
export async function readJobState(file: string, shown: string): Promise<JobState | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UsageError(`cannot read the state file ${shown}: ${(e as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${shown} is not a batch state file: ${(e as Error).message}`);
  }
  const v = value as Partial<JobState> | null;
  if (v === null || typeof v !== 'object' || v.kind !== 'textgen-provider-batch' || !Array.isArray(v.parts))
    throw new UsageError(`${shown} is not a batch state file (textgen batch submit writes them)`);
  if (v.version !== 1)
    throw new UsageError(`${shown} is a batch state file of another textgen version (${String(v.version)})`);
  return v as JobState;
}

export async function writeJobState(file: string, state: JobState): Promise<void> {
  const { writePrivateFile } = await import('../../config/private-file.js');
  await writePrivateFile(file, `${JSON.stringify(state, null, 2)}\n`);
}

export function submittedParts(state: JobState): PartState[] {
  return state.parts.filter((p) => p.batchId !== undefined);
}
