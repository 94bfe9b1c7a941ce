import { UsageError } from '../contract/errors.js';

export type OutputFormat = 'text' | 'json' | 'jsonl' | 'yaml';

const FORMATS: readonly OutputFormat[] = ['text', 'json', 'jsonl', 'yaml'];

/** `-o/--output`: case-insensitive; `table` is cpd-cli's name for the human format, so it means `text`. */
export function parseOutputFormat(value: string | undefined): OutputFormat {
  if (value === undefined) return 'text';
  const lower = value.toLowerCase();
  if (lower === 'table') return 'text';
  const found = FORMATS.find((f) => f === lower);
  if (found === undefined) {
    throw new UsageError(`--output must be one of ${FORMATS.join(', ')} (got ${JSON.stringify(value)})`);
  }
  return found;
}

/**
 * One value as JSON, JSONL or YAML, always ending in "\n". `rawOutput` prints a string result bare
 * (like `jq -r` and cpd-cli `--raw-output`); it has no effect on other values.
 */
export async function renderStructured(
  value: unknown,
  format: 'json' | 'yaml' | 'jsonl',
  opts: { rawOutput?: boolean },
): Promise<string> {
  if (opts.rawOutput === true && typeof value === 'string') return `${value}\n`;
  // JSON.stringify(undefined) is undefined, not text: a missing result prints as null.
  const defined = value === undefined ? null : value;
  switch (format) {
    case 'json':
      return `${JSON.stringify(defined, null, 2)}\n`;
    case 'jsonl':
      return `${JSON.stringify(defined)}\n`;
    case 'yaml': {
      const { stringify } = (await import('yaml')).default; // CommonJS in Node: module.exports, here and in the bundle
      const text = stringify(defined);
      return text.endsWith('\n') ? text : `${text}\n`;
    }
  }
}
