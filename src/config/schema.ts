/**
 * The zod schema of a textgen config file (docs/design.md §2) and the messages its failures turn into.
 * This module is only ever loaded lazily (`await import('./schema.js')` from load.ts), so zod is imported at the top.
 */
import { didYouMean } from '../contract/did-you-mean.js';
import * as z from 'zod';
import { UsageError } from '../contract/errors.js';
import { ENGINE_KINDS } from '../contract/local-engine.js';
import { NOT_HTTP_URL, urlProblem } from './base-url.js';
import { MAX_RETRIES } from '../contract/call-defaults.js';
import {
  AUTH_TYPES,
  CHAT_APIS,
  PROVIDER_KINDS,
  SERVER_PARAMETER_NAMES,
  type ProviderKind,
} from '../contract/profile.js';

const text = z.string().min(1);
const envName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name (letters, digits and _)');
const httpUrl = z.string().superRefine((value, ctx) => {
  const problem = urlProblem(value);
  if (problem !== undefined)
    ctx.addIssue({ code: 'custom', message: problem.reason ? `${NOT_HTTP_URL}: ${problem.reason}` : NOT_HTTP_URL });
});
const count = z.number().int().min(0);

/** Each credential is given exactly one way: a literal or the name of the variable that holds it. */
function exactlyOne(fields: readonly string[]) {
  return (value: Record<string, unknown>, ctx: z.core.$RefinementCtx) => {
    const given = fields.filter((f) => value[f] !== undefined);
    if (given.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        path: given.length > 1 ? [given[1] as string] : [],
        message:
          given.length > 1
            ? `conflicts with ${given[0]}: give exactly one of ${fields.join(', ')}`
            : `needs one of ${fields.join(', ')}`,
      });
    }
  };
}

const iamAuth = z
  .strictObject({
    type: z.literal('iam'),
    apikey_env: envName.optional(),
    apikey: text.optional(),
    iam_url: httpUrl.optional(),
  })
  .superRefine(exactlyOne(['apikey_env', 'apikey']));
const cpdAuth = z
  .strictObject({
    type: z.literal('cpd'),
    username: text,
    apikey_env: envName.optional(),
    apikey: text.optional(),
    password_env: envName.optional(),
    password: text.optional(),
  })
  .superRefine(exactlyOne(['apikey_env', 'apikey', 'password_env', 'password']));
const zenAuth = z
  .strictObject({
    type: z.literal('zenapikey'),
    username: text,
    apikey_env: envName.optional(),
    apikey: text.optional(),
  })
  .superRefine(exactlyOne(['apikey_env', 'apikey']));
const bearerAuth = z
  .strictObject({ type: z.literal('bearer'), token_env: envName.optional(), token: text.optional() })
  .superRefine(exactlyOne(['token_env', 'token']));
const apiKeyAuth = z
  .strictObject({ type: z.literal('api-key'), key_env: envName.optional(), key: text.optional() })
  .superRefine(exactlyOne(['key_env', 'key']));
const noAuth = z.strictObject({ type: z.literal('none') });

const AUTH_VARIANTS = [iamAuth, cpdAuth, zenAuth, bearerAuth, apiKeyAuth, noAuth] as const;
export const authSchema = z.discriminatedUnion('type', [...AUTH_VARIANTS]);

export const profileSchema = z.strictObject({
  provider: z.enum(PROVIDER_KINDS as readonly [ProviderKind, ...ProviderKind[]]),
  url: httpUrl.optional(),
  api_version: text.optional(),
  space_id: text.optional(),
  project_id: text.optional(),
  timeout: count.optional(),
  retries: count.max(MAX_RETRIES).optional(),
  tls: z.strictObject({ ca_cert: text.optional(), insecure: z.boolean().optional() }).optional(),
  // Canonical parameters the server takes as extra keys (Open Inference servers differ in what they accept).
  server_parameters: z.array(z.enum(SERVER_PARAMETER_NAMES)).optional(),
  // Aleph Alpha servers stream from API 1.19 on; 1.16 does not.
  streaming: z.boolean().optional(),
  // Aleph Alpha servers with the chat route (/chat/completions); other providers' chat needs no switch.
  chat: z.boolean().optional(),
  // The api-version of chat requests (Azure OpenAI), apart from api_version: chat needs a newer one than completions.
  chat_api_version: text.optional(),
  // Which chat API `chat` calls (OpenAI and Azure OpenAI have chat completions and the Responses API).
  api: z.enum(CHAT_APIS).optional(),
  defaults: z
    .strictObject({
      model: text.optional(),
      hosting: text.optional(),
      // Its fields are validated by the options layer, which knows the ranges and names the flag.
      parameters: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
  auth: authSchema.optional(),
  // A profile with an engine and no url runs the embedded server in-process with that engine (docs/local-model.md).
  engine: z.enum(ENGINE_KINDS).optional(),
  // The llama engine's GGUF file; a relative path is relative to the file that holds the profile.
  model_path: text.optional(),
  model_name: text.optional(),
  threads: count.min(1).optional(),
  context_size: count.min(1).optional(),
  gpu: z.enum(['auto', 'off']).optional(),
  parallel: count.min(1).optional(),
  // `textgen --profile NAME serve` without --upstream answers through this profile (or one per front protocol): docs/gateway.md.
  upstream: z
    .union([
      text,
      z.strictObject({
        watsonx: text.optional(),
        openai: text.optional(),
        'azure-openai': text.optional(),
        'aleph-alpha': text.optional(),
        'open-inference': text.optional(),
      }),
    ])
    .optional(),
});

/** Profile names become YAML keys, flag values and file names in messages: keep them plain. */
const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export const configFileSchema = z
  .strictObject({
    default_profile: text.optional(),
    // `profiles:` with nothing under it is how a fresh file looks, not a mistake.
    profiles: z.record(z.string(), profileSchema).nullish(),
    // Project files you trust (`textgen trust`): read from the user file only (src/config/trust.ts).
    trusted_files: z
      .array(
        z.strictObject({
          path: text,
          sha256: z.string().regex(/^[0-9a-f]{64}$/, 'must be a sha256 in hex (64 characters)'),
          trusted_at: text.optional(),
        }),
      )
      .optional(),
  })
  .superRefine((file, ctx) => {
    for (const name of Object.keys(file.profiles ?? {})) {
      if (!PROFILE_NAME.test(name)) {
        ctx.addIssue({
          code: 'custom',
          path: ['profiles', name],
          message: 'profile names use letters, digits, ".", "_" and "-", starting with a letter or digit',
        });
      }
    }
  });

export type ConfigFile = z.infer<typeof configFileSchema>;
export type ProfileConfig = z.infer<typeof profileSchema>;
export type AuthConfig = z.infer<typeof authSchema>;

/**
 * Validates the contents of one file. Throws a UsageError that names the file and every bad field
 * (`~/.config/textgen/config.yaml: profiles.wx.auth.type: expected one of iam, cpd, …`).
 */
export function parseConfigFile(data: unknown, shownFile: string): ConfigFile {
  if (nestedDeeperThan(data, MAX_CONFIG_DEPTH)) {
    throw new UsageError(
      `${shownFile}: nested more than ${MAX_CONFIG_DEPTH} levels deep (or a value contains itself)`,
      {
        hint: 'a config file is a few levels deep: default_profile, profiles.NAME.FIELD',
      },
    );
  }
  // An empty file is an empty config, not an error.
  const result = configFileSchema.safeParse(data ?? {});
  if (result.success) return result.data;
  // A typo'd credential field also makes "needs one of …" fire on the same block: the typo is the news.
  const typoAt = new Set(
    result.error.issues.filter((i) => i.code === 'unrecognized_keys').map((i) => JSON.stringify(i.path)),
  );
  const issues = result.error.issues.filter((i) => i.code !== 'custom' || !typoAt.has(JSON.stringify(i.path)));
  const lines = issues.slice(0, 10).flatMap((issue) => describeIssue(issue, data));
  const more = issues.length > 10 ? [`${shownFile}: … and ${issues.length - 10} more`] : [];
  throw new UsageError([...lines.map((l) => `${shownFile}: ${l}`), ...more].join('\n'));
}

/** Deeper than any config needs; validation and merging walk the data recursively and must not overflow the stack. */
export const MAX_CONFIG_DEPTH = 100;

/** Walks without recursion, so a cyclic JavaScript config or a deep YAML document cannot overflow the stack here. */
function nestedDeeperThan(data: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[data, 0]];
  let visited = 0;
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (depth >= max) return true;
    // A file expanding to millions of values is as unusable as a deep one (the YAML alias limit bounds it too).
    if (++visited > 1_000_000) return true;
    for (const child of Object.values(value)) stack.push([child, depth + 1]);
  }
  return false;
}

function describeIssue(issue: z.core.$ZodIssue, data: unknown): string[] {
  const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
  const at = (p: (string | number)[]) => (p.length === 0 ? '(top level)' : fieldPath(p));
  switch (issue.code) {
    case 'unrecognized_keys': {
      // Keys are the file's own text: a file that is not a config at all (--config naming /etc/passwd, a .env) would
      // be echoed line by line. The first unknown key is named, shortened, and the rest counted.
      const [first, ...others] = issue.keys;
      if (first === undefined) return [];
      const known = knownKeys(path, data);
      const more =
        others.length > 0 ? ` (and ${others.length} more unknown field${others.length === 1 ? '' : 's'})` : '';
      const notConfig =
        path.length === 0 && others.length > 0
          ? `; is this a textgen config file? it takes ${known.join(' and ')}`
          : '';
      return [`${at([...path, shortKey(first)])}: unknown field${suggest(first, known)}${more}${notConfig}`];
    }
    case 'invalid_union':
      if (issue.discriminator === 'type' && issue.errors.length === 0) {
        const list = AUTH_TYPES.join(', ');
        return [
          `${at(path)}: ${valueAt(data, path) === undefined ? `is required (one of ${list})` : `expected one of ${list}`}`,
        ];
      }
      return [`${at(path)}: ${issue.message}`];
    case 'invalid_value':
      if (valueAt(data, path) === undefined) return [`${at(path)}: is required (one of ${issue.values.join(', ')})`];
      return [`${at(path)}: expected one of ${issue.values.join(', ')}`];
    case 'invalid_type': {
      if (valueAt(data, path) === undefined) return [`${at(path)}: is required`];
      const expected =
        issue.expected === 'int'
          ? 'an integer'
          : issue.expected === 'record'
            ? 'a mapping'
            : issue.expected === 'object'
              ? 'a mapping'
              : `a ${issue.expected}`;
      return [`${at(path)}: expected ${expected}, got ${kindOf(valueAt(data, path))}`];
    }
    case 'too_small':
      if (issue.origin === 'string') return [`${at(path)}: must not be empty`];
      return [`${at(path)}: must be ${issue.inclusive ? 'at least' : 'greater than'} ${String(issue.minimum)}`];
    case 'too_big':
      return [`${at(path)}: must be ${issue.inclusive ? 'at most' : 'less than'} ${String(issue.maximum)}`];
    default:
      return [`${at(path)}: ${issue.message}`];
  }
}

/** At most 24 characters of a key, for messages. */
function shortKey(key: string): string {
  return key.length > 24 ? `${key.slice(0, 23)}…` : key;
}

/** `profiles.wx.auth.type`; names that are not plain identifiers are bracketed so the path stays unambiguous. */
export function fieldPath(path: readonly (string | number)[]): string {
  return path
    .map((p, i) =>
      typeof p === 'number'
        ? `[${p}]`
        : /^[A-Za-z_][A-Za-z0-9_-]*$/.test(p)
          ? i === 0
            ? p
            : `.${p}`
          : `[${JSON.stringify(p)}]`,
    )
    .join('');
}

function valueAt(data: unknown, path: readonly (string | number)[]): unknown {
  let cur: unknown = data;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, p)) return undefined;
    cur = (cur as Record<string | number, unknown>)[p];
  }
  return cur;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  // YAML tags make these: `!!binary`, `!!timestamp`, `!!set`.
  if (ArrayBuffer.isView(value)) return 'binary data';
  if (value instanceof Date) return 'a date';
  if (value instanceof Set) return 'a set';
  if (typeof value === 'object') return 'a mapping';
  return `a ${typeof value}`;
}

/** The fields allowed where an unknown one was found, for "did you mean". */
function knownKeys(path: readonly (string | number)[], data: unknown): string[] {
  const shape = (s: { shape: Record<string, unknown> }) => Object.keys(s.shape);
  if (path.length === 0) return ['default_profile', 'profiles'];
  if (path.length === 2 && path[0] === 'profiles') return shape(profileSchema);
  if (path.length === 3 && path[2] === 'tls') return ['ca_cert', 'insecure'];
  if (path.length === 3 && path[2] === 'defaults') return ['model', 'hosting', 'parameters'];
  if (path.length === 3 && path[2] === 'auth') {
    const type = (valueAt(data, path) as { type?: unknown } | undefined)?.type;
    const variant = AUTH_VARIANTS.find((v) => v.shape.type.value === type);
    return variant ? Object.keys(variant.shape) : [];
  }
  return [];
}

/** " (did you mean x?)" for a mistyped key, with the one threshold every did-you-mean uses. */
function suggest(key: string, candidates: string[]): string {
  const best = didYouMean(key, candidates);
  return best !== undefined ? ` (did you mean ${best}?)` : '';
}
