/**
 * From the flags of `deployment text-generate` to a validated canonical request (docs/design.md §1–§3).
 * Cheap to import: zod and the schemas load inside buildCanonicalRequest.
 */
import type { CanonicalParameters, CanonicalRequest } from '../contract/canonical.js';
import { type OptionValues, optionKey } from '../command.js';
import { UsageError } from '../contract/errors.js';
import { deepMerge } from '../contract/deep-merge.js';
import {
  coerceBoolean,
  coerceEnum,
  coerceInt,
  coerceNumber,
  parseStopSequences,
  type RawFlagValue,
} from './flag-values.js';
import type { COMPLETE_OPTION_SPECS } from './complete-flag-specs.js';
import {
  type GENERATE_FLAG_SPECS,
  GRANULAR_PARAMETER_FLAGS,
  type ParameterFlagMapping,
} from './generate-flag-specs.js';
import { readJsonOption, refusePrototypeKeys, type JsonOptionIo } from './json-option.js';
import { type Locator, within } from './issue-site.js';
import { plainParameters } from './plain-parameters.js';
import type { ValidateOptions } from './validate-option.js';

type TextGenerateOptions = OptionValues<typeof GENERATE_FLAG_SPECS>;
type CompleteOptions = OptionValues<typeof COMPLETE_OPTION_SPECS>;
type SharedKey = keyof TextGenerateOptions & keyof CompleteOptions;

/**
 * The options of `deployment text-generate` or of `complete`, as commander gives them: a flag both declare has
 * either command's value type (text-generate's `--raw [bool]` is `string | true`, complete's `--raw` a boolean);
 * text-generate's own flags (`--input`, `--moderations`, the `--parameters-*`) are absent for complete.
 */
export type RawGenerateOptions = { [K in SharedKey]?: TextGenerateOptions[K] | CompleteOptions[K] } & Omit<
  TextGenerateOptions,
  SharedKey
> & {
    /** Positional words (`complete`'s PROMPT…), as the CLI passes them: a prompt that does not come from stdin. */
    args?: string[];
  };

export interface BuiltRequest {
  /** Parameters and moderations; `input` is resolved separately (see input.ts). */
  request: CanonicalRequest;
  /** `--extra`: provider-specific body fields. */
  extra?: Record<string, unknown>;
}

export interface BuildOptions extends JsonOptionIo {
  /** The profile's `defaults.parameters`: the lowest layer, under the JSON option and the flags. */
  defaults?: CanonicalParameters;
  /**
   * The granular flags of the command (default: the sixteen `--parameters-*` of text-generate) and whether
   * `--parameters` may be combined with them. cpd-cli makes them exclusive; `complete` layers the flags over it.
   */
  flags?: readonly ParameterFlagMapping[];
  parametersWithFlags?: 'conflict' | 'merge';
}

const DEFAULTS_OWNER = 'profile defaults';
const EXTRA_HINT = 'provider-specific body fields go in --extra';

/**
 * Precedence (docs/design.md §2): profile defaults < `--parameters` < `--parameters-*` flags, objects merged
 * key by key. Each layer is validated on its own, so a message names the flag the value came from;
 * the merged result is validated again for the rules that span fields (min ≤ max new tokens).
 */
export async function buildCanonicalRequest(raw: RawGenerateOptions, opts: BuildOptions): Promise<BuiltRequest> {
  const table = opts.flags ?? GRANULAR_PARAMETER_FLAGS;
  // The table of parameter flags is chosen at run time (text-generate's, or complete's with its synthetic keys), so
  // its keys are looked up through a record of what commander can store.
  const values = raw as Record<string, RawFlagValue>;
  const granular = table.filter((f) => values[f.key] !== undefined);
  if (raw.parameters !== undefined && granular.length > 0 && opts.parametersWithFlags !== 'merge')
    throw conflictError(granular);
  checkStdinReaders(raw);

  let merged: CanonicalParameters = {};
  const provenance = new Map<string, Locator>();
  let layers = 0;
  const addLayer = (params: CanonicalParameters, locate: Locator) => {
    merged = deepMerge(merged, params);
    for (const key of Object.keys(params)) provenance.set(key, locate);
    layers++;
  };

  if (opts.defaults !== undefined) {
    const locate = within(DEFAULTS_OWNER);
    addLayer(await validParameters(opts.defaults, locate), locate);
  }
  if (raw.parameters !== undefined) {
    const value = await readJsonOption('--parameters', jsonText('--parameters', raw.parameters), opts);
    const locate = within('--parameters');
    addLayer(await validParameters(value, locate, { unknownFieldHint: EXTRA_HINT }), locate);
  }
  if (granular.length > 0) {
    let fromFlags: Record<string, unknown> = {};
    for (const f of granular) fromFlags = deepMerge(fromFlags, { [f.field]: await flagValue(f, values[f.key]!, opts) });
    const locate = byFlag(table);
    addLayer(await validParameters(fromFlags, locate), locate);
  }
  if (layers > 1) {
    const locate: Locator = (path) => (provenance.get(String(path[0])) ?? within('parameters'))(path);
    merged = await validParameters(merged, locate);
  }

  const request: CanonicalRequest = {};
  if (Object.keys(merged).length > 0) request.parameters = merged;
  if (raw.moderations !== undefined) {
    const value = await readJsonOption('--moderations', jsonText('--moderations', raw.moderations), opts);
    const [{ moderationsSchema }, { validateOption }] = await zodValidation();
    request.moderations = validateOption(moderationsSchema(), value, within('--moderations'));
  }
  const built: BuiltRequest = { request };
  if (raw.extra !== undefined) {
    const value = await readJsonOption('--extra', jsonText('--extra', raw.extra), opts);
    refusePrototypeKeys('--extra', value);
    const [{ extraSchema }, { validateOption }] = await zodValidation();
    built.extra = validateOption(extraSchema(), value, within('--extra'));
  }
  return built;
}

/** zod and the schemas: for what ./plain-parameters.ts cannot vouch for, and for every message. */
const zodValidation = () => Promise.all([import('./schemas.js'), import('./validate-option.js')]);

/** One layer of parameters, validated: without zod when it is certainly valid (./plain-parameters.ts). */
async function validParameters(
  value: unknown,
  locate: Locator,
  options?: ValidateOptions,
): Promise<CanonicalParameters> {
  const plain = plainParameters(value);
  if (plain !== undefined) return plain;
  const [{ parametersSchemaFor }, { validateOption }] = await zodValidation();
  return validateOption(parametersSchemaFor(value), value, locate, options);
}

function byFlag(table: readonly ParameterFlagMapping[]): Locator {
  return (path) => {
    const f = table.find((g) => g.field === path[0]);
    return f === undefined ? { owner: 'parameters', field: path } : { owner: f.flag, field: path.slice(1) };
  };
}

async function flagValue(
  f: ParameterFlagMapping,
  value: string | boolean | string[],
  opts: BuildOptions,
): Promise<unknown> {
  switch (f.kind) {
    case 'int':
      return coerceInt(value);
    case 'number':
      return coerceNumber(value);
    case 'bool':
      return coerceBoolean(value);
    case 'enum':
      return coerceEnum(value);
    case 'list':
      return parseStopSequences(f.flag, value);
    case 'strings':
      return (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string');
    case 'json':
      return readJsonOption(f.flag, jsonText(f.flag, value), opts);
  }
}

function jsonText(flag: string, value: string | boolean | string[]): string {
  const v = Array.isArray(value) ? value[value.length - 1] : value;
  if (typeof v !== 'string') throw new UsageError(`${flag} needs a value: JSON, or @file to read it from a file`);
  return v;
}

function conflictError(granular: readonly ParameterFlagMapping[]): UsageError {
  const flags = granular.map((f) => f.flag).join(', ');
  const fields = joinAnd(granular.map((f) => f.field));
  return new UsageError(
    `--parameters and ${flags} cannot be used together: put ${fields} inside --parameters, or drop --parameters`,
  );
}

function joinAnd(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** Flags whose value is JSON-or-@file, and so may be `@-`. */
const JSON_VALUED: ReadonlyArray<readonly [flag: string, key: keyof RawGenerateOptions]> = [
  ...(['--parameters', '--moderations', '--extra'] as const).map((flag) => [flag, optionKey(flag)] as const),
  ...GRANULAR_PARAMETER_FLAGS.filter((f) => f.kind === 'json').map((f) => [f.flag, f.key] as const),
];

/** stdin can be read once: by one `@-` option, or `--input-file -`, or as the implicit prompt. */
function checkStdinReaders(raw: RawGenerateOptions): void {
  const readers = JSON_VALUED.filter(([, key]) => raw[key] === '@-').map(([flag]) => `${flag} @-`);
  if (raw.inputFile === '-') readers.unshift('--input-file -');
  if (readers.length > 1)
    throw new UsageError(
      `only one option can read stdin, but ${joinAnd(readers)} ${readers.length === 2 ? 'both' : 'all'} do`,
    );
  const promptWords = Array.isArray(raw.args) && raw.args.length > 0;
  if (readers.length === 1 && raw.input === undefined && raw.inputFile === undefined && !promptWords) {
    throw new UsageError(`${readers[0]} reads stdin, so the prompt cannot come from stdin too`, {
      hint: 'give the prompt on the command line (--input, or the words after complete) or with --input-file',
    });
  }
}
