/** A result as structured text: after the `-j` query, as JSON, YAML or one JSONL line (generation and chat alike). */
import type { OutputFormat } from './format.js';

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
