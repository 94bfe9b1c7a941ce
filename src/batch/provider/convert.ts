/**
 * `batch submit`'s first pass: every line of the input read by the same command `--batch` runs it with (complete,
 * chat or embed), so it is checked exactly as `--batch --dry-run` checks it, and turned into the provider's line
 * `{"custom_id", "method": "POST", "url", "body"}` — the body the adapter builds for that line. A line already in
 * the provider's format keeps its body (its url is the provider's own route for the endpoint). custom_ids come
 * from the line (`custom_id`, else `id`), else from its number (`line-N`), and must be unique. Nothing is sent.
 */
import type { Context } from '../../context.js';
import type { BatchEndpoint, BatchOperation, ProviderLine } from '../../contract/adapter.js';
import type { ResolvedProfile } from '../../contract/profile.js';
import type { HttpRequestSpec } from '../../contract/http.js';
import type { LineCollector } from '../../options/batch-settings.js';
import { isProviderLine } from '../provider-line.js';

export interface ConvertedLine {
  line: number;
  customId: string;
  /** The provider line's JSON text, without the newline. */
  text: string;
}

export interface Conversion {
  lines: ConvertedLine[];
  invalid: Array<{ line: number; message: string }>;
}

/** The custom_id of a line in either format: the one rule of submit (which makes them) and results (which reads them). */
export function customIdOf(value: unknown, line: number): { customId: string; idJson?: string } {
  if (isProviderLine(value) && typeof value.custom_id === 'string')
    return { customId: value.custom_id, idJson: JSON.stringify(value.custom_id) };
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const id = (value as { id?: unknown }).id;
    if (typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)))
      return { customId: String(id), idJson: JSON.stringify(id) };
  }
  return { customId: `line-${line}` };
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Runs every line of `source` through the endpoint's command in collecting mode. */
export async function convertInput(
  ctx: Context,
  source: string,
  endpoint: BatchEndpoint,
  model: string | undefined,
  op: BatchOperation,
  profile: ResolvedProfile,
): Promise<Conversion> {
  const out: Conversion = { lines: [], invalid: [] };
  const seen = new Map<string, number>();
  const url = op.lineUrl(endpoint, profile);
  let usedModel = model ?? profile.defaults.model ?? '';
  const collector: LineCollector = {
    line(line, text, _idJson, spec: HttpRequestSpec) {
      const value = parsed(text);
      const { customId } = customIdOf(value, line);
      const earlier = seen.get(customId);
      if (earlier !== undefined) {
        out.invalid.push({ line, message: `custom_id "${customId}" is also the custom_id of line ${earlier}` });
        return;
      }
      seen.set(customId, line);
      let body: Record<string, unknown>;
      if (isProviderLine(value)) {
        const own = value.body as Record<string, unknown>;
        body =
          'model' in own || 'model_id' in own
            ? own
            : op.lineBody({ ...spec, body: JSON.stringify(own) }, endpoint, usedModel);
      } else {
        body = op.lineBody(spec, endpoint, usedModel);
      }
      const providerLine: ProviderLine = { custom_id: customId, method: 'POST', url, body };
      out.lines.push({ line, customId, text: JSON.stringify(providerLine) });
    },
    invalid(line, message) {
      out.invalid.push({ line, message });
    },
  };
  const settings = { source, concurrency: 1, failFast: false, collect: collector };
  if (usedModel === '') usedModel = await modelOfFirstLine(source);
  const target = usedModel === '' ? undefined : usedModel;
  if (endpoint === 'completions') {
    const { runGenerationBatch } = await import('../generate-batch.js');
    await runGenerationBatch(ctx, { raw: {}, target: { kind: 'model', model: target }, stream: false }, settings);
  } else if (endpoint === 'chat') {
    const { runChatBatch } = await import('../../chat/batch.js');
    const o = ctx.output();
    await runChatBatch(
      ctx,
      {
        parameters: {},
        features: {},
        model: target,
        present: { format: o.format, jmes: undefined, rawOutput: false, raw: false },
        ignoreUnsupported: false,
        stream: false,
      },
      settings,
      { given: [], system: undefined, raw: {} },
    );
  } else {
    const { runEmbedBatch } = await import('../embed-batch.js');
    await runEmbedBatch(ctx, { model: target, settings: {}, inputFlags: [], refused: [], raw: {} }, settings);
  }
  out.invalid.sort((a, b) => a.line - b.line);
  return out;
}

/** A provider-format file names its model in each body: the first line's, when no -m was given. */
async function modelOfFirstLine(source: string): Promise<string> {
  const { openInput, readLines } = await import('../line-reader.js');
  const file = await openInput('submit', source);
  try {
    for await (const text of readLines(file.stream as AsyncIterable<Buffer>)) {
      if (text === undefined || text.trim() === '') continue;
      const value = parsed(text);
      if (!isProviderLine(value)) return '';
      const body = value.body as { model?: unknown; model_id?: unknown } | undefined;
      const m = body?.model ?? body?.model_id;
      return typeof m === 'string' ? m : '';
    }
    return '';
  } finally {
    await file.close();
  }
}
