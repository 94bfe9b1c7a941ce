import type { GenerateResult } from '../canonical.js';
import type { Context } from '../context.js';
import type { OutputFormat } from '../output/format.js';

export interface PresentOptions {
  format: OutputFormat;
  jmes?: string | undefined;
  rawOutput: boolean;
  /** --raw: show the provider's own body/events instead of the canonical result. */
  raw: boolean;
}

/**
 * Decides what reaches stdout for a generation, streamed or not (DESIGN §4–§5): `text` writes deltas as
 * they arrive; `jsonl` one chunk per line; `json`/`yaml` and any `-j` query the aggregated result at the end.
 */
export class GenerationPresenter {
  private wroteText = false;
  private lastChar = '';
  private readonly rawEvents: unknown[] = [];

  constructor(private readonly ctx: Context, private readonly opts: PresentOptions) {}

  /** Whether deltas are written as they arrive (so partial output exists). */
  get streamsText(): boolean {
    return this.opts.format === 'text' && !this.opts.jmes && !this.opts.raw;
  }

  private get streamsLines(): boolean {
    return this.opts.format === 'jsonl' && !this.opts.jmes;
  }

  private writeText(text: string): void {
    if (!text) return;
    this.ctx.out.write(text);
    this.wroteText = true;
    this.lastChar = text[text.length - 1] as string;
  }

  /** One streamed chunk: canonical delta plus the provider's own event. */
  async chunk(chunk: GenerateResult, rawEvent: unknown): Promise<void> {
    if (this.opts.raw) {
      if (this.streamsLines || (!this.opts.jmes && this.opts.format === 'text')) {
        this.ctx.out.write(`${JSON.stringify(rawEvent)}\n`);
      } else {
        this.rawEvents.push(rawEvent);
      }
      return;
    }
    if (this.streamsText) {
      this.writeText(chunk.results.map((r) => r.generated_text).join(''));
    } else if (this.streamsLines) {
      this.ctx.out.write(`${JSON.stringify(chunk)}\n`);
    }
  }

  /** The end of a generation (complete, broken off or interrupted): whatever is still owed to stdout. */
  async finish(result: GenerateResult, rawBody?: { text: string; json: unknown }): Promise<void> {
    const { format, jmes, rawOutput } = this.opts;
    if (this.opts.raw) {
      const value = rawBody ? rawBody.json : this.rawEvents;
      if (rawBody === undefined && !jmes && (format === 'text' || format === 'jsonl')) return; // events already written
      if (rawBody !== undefined && !jmes && format === 'text') {
        this.ctx.out.write(rawBody.text.endsWith('\n') ? rawBody.text : `${rawBody.text}\n`);
        return;
      }
      await this.structured(value, jmes, format, rawOutput);
      return;
    }
    if (this.streamsText) {
      const text = result.results.map((r) => r.generated_text).join('\n');
      if (!this.wroteText) this.writeText(text);
      if (this.wroteText && this.lastChar !== '\n') this.ctx.out.write('\n');
      return;
    }
    if (this.streamsLines) {
      if (rawBody !== undefined) this.ctx.out.write(`${JSON.stringify(result)}\n`);
      return;
    }
    await this.structured(result, jmes, format, rawOutput);
  }

  /** Called when a stream broke off or was interrupted after partial text. */
  async finishPartial(result: GenerateResult): Promise<void> {
    if (this.opts.raw && (this.opts.format === 'text' || this.opts.format === 'jsonl') && !this.opts.jmes) return;
    if (this.streamsText) {
      if (this.wroteText && this.lastChar !== '\n') this.ctx.out.write('\n');
      return;
    }
    if (this.streamsLines) return;
    await this.finish(result);
  }

  private async structured(value: unknown, jmes: string | undefined, format: OutputFormat, rawOutput: boolean): Promise<void> {
    const { renderStructured } = await import('../output/format.js');
    let v = value;
    if (jmes) {
      const { applyJmesQuery } = await import('../output/jmes.js');
      v = await applyJmesQuery(value, jmes);
    }
    const shape = format === 'yaml' ? 'yaml' : format === 'jsonl' ? 'jsonl' : 'json';
    this.ctx.out.write(await renderStructured(v, shape, { rawOutput }));
  }
}
