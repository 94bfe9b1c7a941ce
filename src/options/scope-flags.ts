/**
 * The scope options of cpd-cli's `wx-ai` commands, as plain data (loaded for `--help` and completion: literals only):
 * the space or project a call runs in (`--space-id ID` / `--space NAME`, `--project-id ID` / `--project NAME`),
 * `--cpd-scope cpd://PROFILE/spaces/ID` (the profile and the scope in one), and `--version YYYY-MM-DD` after the
 * command words (the API version date, as IBM's examples pass it; `textgen --version` alone still prints textgen's
 * version: src/cli/route.ts tells the two apart). Commands include one of the groups below; `readScopeFlags` checks
 * what was given and ./scope-resolve.ts turns it into the profile the command runs with.
 */
import type { OptionSpec, OptionValues } from '../command.js';
import { UsageError } from '../contract/errors.js';

const SPACE_FLAGS = [
  {
    flags: '--space-id <id>',
    description: "the deployment space to run in (36 characters); overrides the profile's space_id",
  },
  { flags: '--space <name>', description: 'the deployment space to run in, by name (looked up in /v2/spaces)' },
] as const satisfies readonly OptionSpec[];

const PROJECT_FLAGS = [
  {
    flags: '--project-id <id>',
    description: "the project to run in (36 characters); overrides the profile's project_id",
  },
  { flags: '--project <name>', description: 'the project to run in, by name (looked up in /v2/projects)' },
] as const satisfies readonly OptionSpec[];

const CPD_SCOPE_FLAG = {
  flags: '--cpd-scope <url>',
  description: 'the profile and the scope in one: cpd://PROFILE/spaces/ID or cpd://PROFILE/projects/ID',
} as const satisfies OptionSpec;

/** `--version` after the command words: the API version date (the same as the global --api-version). */
export const VERSION_FLAG_SPECS = [
  { flags: '--version <date>', description: 'the API version date, YYYY-MM-DD (the same as --api-version)' },
] as const satisfies readonly OptionSpec[];

/** A space or a project: the commands whose calls take either (deployment list/get, time-series forecast, …). */
export const SCOPE_FLAG_SPECS = [
  ...SPACE_FLAGS,
  ...PROJECT_FLAGS,
  CPD_SCOPE_FLAG,
  ...VERSION_FLAG_SPECS,
] as const satisfies readonly OptionSpec[];

/** A space only: the deployment inference commands, as IBM's reference gives them (a deployment lives in a space). */
export const SPACE_SCOPE_FLAG_SPECS = [
  ...SPACE_FLAGS,
  CPD_SCOPE_FLAG,
  ...VERSION_FLAG_SPECS,
] as const satisfies readonly OptionSpec[];

/** The pairs no command line may hold both of (an id and a name for the same thing). */
export const SCOPE_EXCLUSIONS = [
  ['--space-id', '--space'],
  ['--project-id', '--project'],
] as const;

/** What any scope group leaves in a command's options (every key optional: a group may lack the project pair). */
export type ScopeFlagOptions = Partial<OptionValues<typeof SCOPE_FLAG_SPECS>>;

/** The scope a command line asks for, checked but not yet looked up. */
export interface ScopeRequest {
  /** By id or by name; at most one of space and project. */
  space?: { id: string } | { name: string };
  project?: { id: string } | { name: string };
  /** `--cpd-scope`'s profile, when it names one. */
  profile?: string;
  /** `--version`, validated. */
  apiVersion?: string;
}

/** IBM's space and project ids are 36 characters (a UUID); the reference gives 36 as both the least and the most. */
const ID_LENGTH = 36;

function checkId(flag: string, value: string): string {
  if (value.length !== ID_LENGTH)
    throw new UsageError(`${flag} must be ${ID_LENGTH} characters long, got ${value.length} ("${value}")`, {
      hint: 'a space or project id is a UUID such as 63dc4cf1-252f-424b-b52d-5cdd9814987f; give a name with --space/--project',
    });
  return value;
}

function checkName(flag: string, value: string): string {
  if (value.trim() === '') throw new UsageError(`${flag} must not be empty`);
  return value;
}

/** `YYYY-MM-DD`, a date that exists. */
export function checkVersionDate(flag: string, value: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const date = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : undefined;
  if (!m || !date || date.toISOString().slice(0, 10) !== value)
    throw new UsageError(`${flag} must be a date written YYYY-MM-DD, got "${value}"`, {
      hint: "e.g. --version 2024-05-01 (the API version date; textgen --version alone prints textgen's version)",
    });
  return value;
}

/** `cpd://PROFILE/spaces/ID` or `cpd://PROFILE/projects/ID` (the profile may be left out: `cpd:///spaces/ID`). */
export function parseCpdScope(value: string): { profile?: string; space?: string; project?: string } {
  const m = /^cpd:\/\/([^/]*)\/(spaces|projects)\/([^/?#]+)\/?$/.exec(value);
  if (!m)
    throw new UsageError(`--cpd-scope must be cpd://PROFILE/spaces/ID or cpd://PROFILE/projects/ID, got "${value}"`, {
      hint: 'e.g. --cpd-scope cpd://default-profile/spaces/7bccdda4-9752-4f37-868e-891de6c48135',
    });
  const id = checkId('--cpd-scope', decodeURIComponent(m[3] as string));
  const profile = m[1] === '' ? undefined : decodeURIComponent(m[1] as string);
  return { ...(profile !== undefined ? { profile } : {}), ...(m[2] === 'spaces' ? { space: id } : { project: id }) };
}

/** The scope flags as given, checked: exclusive pairs, id lengths, the date, the cpd:// form. */
export function readScopeFlags(options: ScopeFlagOptions): ScopeRequest {
  // Read by flag (the commander key is derived from it): one spelling of each flag, the one the user typed.
  const value = (flag: string): string | undefined => {
    const v = (options as Record<string, unknown>)[flagKey(flag)];
    return typeof v === 'string' ? v : undefined;
  };
  for (const [a, b] of SCOPE_EXCLUSIONS) {
    if (value(a) !== undefined && value(b) !== undefined)
      throw new UsageError(`${a} and ${b} cannot be used together`, { hint: 'give one of them' });
  }
  const request: ScopeRequest = {};
  const spaceIdGiven = value('--space-id');
  const spaceName = value('--space');
  const projectIdGiven = value('--project-id');
  const projectName = value('--project');
  if (spaceIdGiven !== undefined) request.space = { id: checkId('--space-id', spaceIdGiven) };
  if (spaceName !== undefined) request.space = { name: checkName('--space', spaceName) };
  if (projectIdGiven !== undefined) request.project = { id: checkId('--project-id', projectIdGiven) };
  if (projectName !== undefined) request.project = { name: checkName('--project', projectName) };
  const cpdScope = value('--cpd-scope');
  if (cpdScope !== undefined) {
    const scope = parseCpdScope(cpdScope);
    const named = scope.space !== undefined ? '--space-id/--space' : '--project-id/--project';
    if ((scope.space !== undefined && request.space) || (scope.project !== undefined && request.project))
      throw new UsageError(`--cpd-scope and ${named} cannot be used together`, { hint: 'give one of them' });
    if (scope.space !== undefined) request.space = { id: scope.space };
    if (scope.project !== undefined) request.project = { id: scope.project };
    if (scope.profile !== undefined) request.profile = scope.profile;
  }
  const version = value('--version');
  if (version !== undefined) request.apiVersion = checkVersionDate('--version', version);
  return request;
}

/** The commander key of a scope flag (--space-id → its camel-case key). */
function flagKey(flag: string): string {
  return flag.slice(2).replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
}

/**
 * The profile `--cpd-scope` names, for the runner to resolve instead of --profile's (src/cli/execute.ts): undefined
 * when it names none. A --profile that names another is a usage error.
 */
export function cpdScopeProfile(opts: Record<string, unknown>, globalProfile: string | undefined): string | undefined {
  const value = opts.cpdScope;
  if (typeof value !== 'string') return undefined;
  const { profile } = parseCpdScope(value);
  if (profile !== undefined && globalProfile !== undefined && globalProfile !== profile)
    throw new UsageError(`--cpd-scope names profile "${profile}" but --profile names "${globalProfile}"`, {
      hint: 'give one of them, or the same profile in both',
    });
  return profile;
}
