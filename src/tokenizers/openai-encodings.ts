/**
 * Which public OpenAI encoding a model name uses (docs/protocols/azure-openai.md "Tokens"), so Azure, OpenAI and any
 * profile with --local can count tokens offline. Azure deployment names are the user's own; a name this table
 * does not know is a usage error that suggests --encoding.
 */
import { UsageError } from '../contract/errors.js';

export const OPENAI_ENCODINGS = ['r50k_base', 'p50k_base', 'cl100k_base', 'o200k_base'] as const;
export type OpenAiEncoding = (typeof OPENAI_ENCODINGS)[number];

export interface EncodingRule {
  /** `exact`: the whole (lower-cased) name; `prefix`: the name starts with it. */
  match: 'exact' | 'prefix';
  name: string;
  encoding: OpenAiEncoding;
}

/** First match wins, so the o200k prefixes come before the `gpt-4` one they would otherwise fall under. */
export const ENCODING_RULES: readonly EncodingRule[] = [
  { match: 'prefix', name: 'gpt-4o', encoding: 'o200k_base' },
  { match: 'prefix', name: 'chatgpt-4o', encoding: 'o200k_base' },
  { match: 'prefix', name: 'gpt-4.1', encoding: 'o200k_base' },
  { match: 'prefix', name: 'gpt-4.5', encoding: 'o200k_base' },
  { match: 'prefix', name: 'gpt-5', encoding: 'o200k_base' },
  { match: 'prefix', name: 'o1', encoding: 'o200k_base' },
  { match: 'prefix', name: 'o3', encoding: 'o200k_base' },
  { match: 'prefix', name: 'o4', encoding: 'o200k_base' },
  { match: 'prefix', name: 'gpt-35-turbo', encoding: 'cl100k_base' },
  { match: 'prefix', name: 'gpt-3.5-', encoding: 'cl100k_base' },
  { match: 'exact', name: 'gpt-4', encoding: 'cl100k_base' },
  { match: 'prefix', name: 'gpt-4-', encoding: 'cl100k_base' },
  { match: 'exact', name: 'text-embedding-ada-002', encoding: 'cl100k_base' },
  { match: 'prefix', name: 'text-embedding-3-', encoding: 'cl100k_base' },
  { match: 'exact', name: 'davinci-002', encoding: 'cl100k_base' },
  { match: 'exact', name: 'babbage-002', encoding: 'cl100k_base' },
  { match: 'exact', name: 'text-davinci-002', encoding: 'p50k_base' },
  { match: 'exact', name: 'text-davinci-003', encoding: 'p50k_base' },
  { match: 'prefix', name: 'code-', encoding: 'p50k_base' },
  { match: 'exact', name: 'text-davinci-001', encoding: 'r50k_base' },
  { match: 'exact', name: 'text-ada-001', encoding: 'r50k_base' },
  { match: 'exact', name: 'text-babbage-001', encoding: 'r50k_base' },
  { match: 'exact', name: 'text-curie-001', encoding: 'r50k_base' },
  { match: 'exact', name: 'davinci', encoding: 'r50k_base' },
  { match: 'exact', name: 'curie', encoding: 'r50k_base' },
  { match: 'exact', name: 'babbage', encoding: 'r50k_base' },
  { match: 'exact', name: 'ada', encoding: 'r50k_base' },
];

/** The encoding of a model name, or undefined. Fine-tuned names (`ft:gpt-4o-mini:org::id`) use their base model's. */
export function encodingForModel(model: string): OpenAiEncoding | undefined {
  let name = model.trim().toLowerCase();
  if (name.startsWith('ft:')) name = name.slice(3).split(':')[0] ?? '';
  const rule = ENCODING_RULES.find((r) => (r.match === 'exact' ? name === r.name : name.startsWith(r.name)));
  return rule?.encoding;
}

export function isOpenAiEncoding(name: string): name is OpenAiEncoding {
  return (OPENAI_ENCODINGS as readonly string[]).includes(name);
}

/** `--encoding NAME`, checked. */
export function parseEncodingFlag(value: string): OpenAiEncoding {
  if (isOpenAiEncoding(value)) return value;
  throw new UsageError(`--encoding must be one of ${OPENAI_ENCODINGS.join(', ')}, got "${value}"`);
}

/**
 * The encoding to use offline: `--encoding` wins, else the model's. `purpose` finishes the sentence of the error
 * ("to tokenize offline").
 */
export function resolveOpenAiEncoding(opts: {
  flag?: string | undefined;
  model?: string | undefined;
  provider: string;
  purpose: string;
}): OpenAiEncoding {
  if (opts.flag !== undefined) return parseEncodingFlag(opts.flag);
  if (opts.model === undefined) {
    throw new UsageError(`a model or an encoding is needed ${opts.purpose}: give --model NAME or --encoding NAME`, {
      hint: `encodings: ${OPENAI_ENCODINGS.join(', ')}`,
    });
  }
  const encoding = encodingForModel(opts.model);
  if (encoding === undefined) {
    throw new UsageError(`no public encoding is known for ${opts.provider} model "${opts.model}" ${opts.purpose}`, {
      hint: `name one with --encoding NAME (${OPENAI_ENCODINGS.join(', ')})`,
    });
  }
  return encoding;
}
