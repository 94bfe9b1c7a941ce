/** A result as structured text: after the `-j` query, as JSON, YAML or one JSONL line (generation and chat alike). */
import type { OutputFormat } from './format.js';
import type { DataSink } from './safe-write.js';

export async function structuredText(
  value: unknown,
  jmes: string | undefined,
  format: OutputFormat,
  rawOutput: boolean,
): Promise<string> {
  const { renderStructured } = await import('./format.js');
  let v = value;
  if (jmes) {
    const { applyJmesQuery } = await import('./jmes.js');
    v = await applyJmesQuery(value, jmes);
  }
  const shape = format === 'yaml' ? 'yaml' : format === 'jsonl' ? 'jsonl' : 'json';
  return renderStructured(v, shape, { rawOutput });
}

/**
 * Structured text to stdout through the sink's matching writer: -r's bare strings are text (escaped on a terminal),
 * JSON and JSONL get JSON's own escapes on a terminal, YAML goes as its writer quoted it.
 */
export function writeStructured(out: DataSink, text: string, format: OutputFormat, rawOutput: boolean): void {
  if (rawOutput) out.text(text);
  else if (format === 'yaml') out.raw(text);
  else out.json(text);
}
