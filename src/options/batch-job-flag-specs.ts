/**
 * The flags the provider batch commands share (`batch submit|status|wait|results|cancel|list`): which job
 * (`ID` or `--state FILE`) and, for watsonx, the space or project. Plain data, cheap to import.
 */
import type { OptionSpec } from '../command.js';

export const BATCH_SCOPE_FLAGS = [
  { flags: '--space-id <id>', description: 'watsonx: the deployment space the batch runs in (over the profile)' },
  { flags: '--project-id <id>', description: 'watsonx: the project the batch runs in (over the profile)' },
] as const satisfies readonly OptionSpec[];

/** Each scope flag's profile entry (BatchScope's key) and the environment variable that sets the same. */
export const BATCH_SCOPE_KEYS = [
  { flag: '--space-id', entry: 'space_id', env: 'TEXTGEN_SPACE_ID' },
  { flag: '--project-id', entry: 'project_id', env: 'TEXTGEN_PROJECT_ID' },
] as const;

export const BATCH_STATE_FLAG = {
  flags: '--state <file>',
  description: "the job's state file (batch submit writes it; default INPUT.batch.json)",
} as const satisfies OptionSpec;

export const BATCH_INTERVAL_FLAG = {
  flags: '--interval <seconds>',
  description: 'longest wait between two status checks (from 0.5 s, doubling; default 30)',
} as const satisfies OptionSpec;

export const BATCH_RESULT_FLAGS = [
  { flags: '--out <file>', description: 'write the records to FILE (put in place when complete) instead of stdout' },
  { flags: '--raw [bool]', description: "records hold the provider's answer bodies as they are" },
] as const satisfies readonly OptionSpec[];
