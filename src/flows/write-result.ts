/**
 * stdout for the commands that answer with one value (`models`, `health`): text for people when asked for text and
 * no `-j` query; otherwise the value — after `-j` — as JSON or YAML, or one line per element with `-o jsonl`.
 */
import type { Context } from '../context.js';
import type { OutputFormat } from '../output/format.js';

export async function writeResult(
  ctx: Context,
  format: OutputFormat,
  value: unknown,
  text: () => string,
  opts: { painted?: boolean } = {},
): Promise<void> {
  const jmes = ctx.output().jmes;
  if (format === 'text' && !jmes) {
    // A picture (heat map, shaded matrix) carries textgen's own colour codes around the user's own text: raw.
    if (opts.painted === true) ctx.out.raw(text());
    else ctx.out.text(text());
    return;
  }
  const { renderStructured } = await import('../output/format.js');
  let v = value;
  if (jmes) {
    const { applyJmesQuery } = await import('../output/jmes.js');
    v = await applyJmesQuery(value, jmes);
  }
  const rawOutput = ctx.output().rawOutput;
  const { writeStructured } = await import('../output/structured.js');
  if (format === 'jsonl' && Array.isArray(v)) {
    for (const item of v)
      writeStructured(ctx.out, await renderStructured(item, 'jsonl', { rawOutput }), format, rawOutput);
    return;
  }
  writeStructured(
    ctx.out,
    await renderStructured(v, format === 'text' ? 'json' : format, { rawOutput }),
    format,
    rawOutput,
  );
}
