import type { GenerateResult, TokenInfo } from '../contract/canonical.js';
import type { Context } from '../context.js';
import type { OutputFormat } from '../output/format.js';
import { colourByLogprob, logprobLegend } from '../output/logprob-colors.js';
import { stdoutColor } from '../output/stdout-color.js';
import { visibleControls } from '../output/visible.js';
import { inCanonicalOrder } from './aggregate.js';

export interface PresentOptions {
  format: OutputFormat;
  jmes?: string | undefined;
  rawOutput: boolean;
  /** --raw: show the provider's own body/events instead of the canonical result. */
  raw: boolean;
  /** --show-logprobs: colour tokens by probability on a terminal (the request asks for token log-probabilities). */
  showLogprobs?: boolean;
  /**
   * The user asked for a stream: deltas (text), chunks (jsonl) or raw events go out as they arrive. When false the
   * CLI may still stream on the wire (a client-side time limit) but prints only the aggregated result.
   */
  live: boolean;
  /** complete --echo (return_options.input_text): the prompt, which text output shows before the answer. */
  echoPrompt?: string | undefined;
}

/**
 * Decides what reaches stdout for a generation (docs/design.md §4–§5): `text` writes deltas as they arrive; `jsonl` one
 * chunk per line; `json`/`yaml` and any `-j` query print the aggregated result at the end.
 */
export class GenerationPresenter {
  private wroteText = false;
  private lastChar = '';
  private readonly rawEvents: unknown[] = [];
  /** --show-logprobs on a colour terminal: text output is painted token by token. */
  private readonly paintLogprobs: boolean;
  private painted = false;
  /** Deltas are written as they arrive. Worked out once: `chunk` runs once per token. */
  private readonly streamsText: boolean;
  /** One line per chunk (canonical, or the provider's own event with --raw). */
  private readonly streamsLines: boolean;
  /** Text output goes to a terminal. */
  private readonly onTerminal: boolean;

  constructor(
    private readonly ctx: Context,
    private readonly opts: PresentOptions,
  ) {
    this.paintLogprobs = opts.showLogprobs === true && !opts.raw && stdoutColor(ctx);
    this.streamsText = opts.live && opts.format === 'text' && !opts.jmes && !opts.raw;
    this.streamsLines = opts.live && !opts.jmes && (opts.format === 'jsonl' || (opts.raw && opts.format === 'text'));
    this.onTerminal = ctx.out.onTerminal;
  }

  private writeText(raw: string, rawTokens?: TokenInfo[]): void {
    if (!this.wroteText && this.opts.echoPrompt) {
      // --echo: the prompt first, then the answer that continues it, as the service's input_text + generated_text.
      const prompt = this.opts.echoPrompt;
      this.wroteText = true;
      this.writeText(prompt);
    }
    if (!raw) return;
    // On a terminal the service's control characters are shown, not obeyed; a pipe gets the text as it is.
    const text = this.onTerminal ? visibleControls(raw) : raw;
    if (this.paintLogprobs && rawTokens !== undefined && rawTokens.length > 0) {
      const tokens = this.onTerminal
        ? rawTokens.map((t) => (t.text === undefined ? t : { ...t, text: visibleControls(t.text) }))
        : rawTokens;
      // Escaped above; the colour codes are textgen's own.
      this.ctx.out.raw(colourByLogprob(text, tokens, true));
      this.painted = true;
    } else {
      this.ctx.out.text(raw);
    }
    this.wroteText = true;
    this.lastChar = text[text.length - 1] as string;
  }

  /** One streamed chunk: canonical delta plus the provider's own event. */
  chunk(chunk: GenerateResult, rawEvent: unknown): void {
    if (this.opts.raw) {
      if (this.streamsLines) this.ctx.out.json(`${JSON.stringify(rawEvent)}\n`);
      else this.rawEvents.push(rawEvent);
    } else if (this.streamsText) {
      // With several choices only the first streams; the others follow at the end, so texts never interleave.
      this.writeText(chunk.results[0]?.generated_text ?? '', chunk.results[0]?.generated_tokens);
    } else if (this.streamsLines) {
      this.ctx.out.json(`${JSON.stringify(inCanonicalOrder(chunk))}\n`);
    }
  }

  /**
   * The end of a generation — complete, broken off, interrupted or cut by a time limit: whatever is still owed to
   * stdout. `rawBody` is the provider's whole answer when it was not streamed.
   */
  async finish(result: GenerateResult, rawBody?: { text: string; json: unknown }): Promise<void> {
    const { format, jmes, rawOutput } = this.opts;
    if (this.opts.raw) {
      if (rawBody === undefined && this.streamsLines) return; // events already written
      if (rawBody !== undefined && !jmes && format === 'text') {
        this.ctx.out.text(rawBody.text.endsWith('\n') ? rawBody.text : `${rawBody.text}\n`);
        return;
      }
      await this.structured(rawBody ? rawBody.json : this.rawEvents, jmes, format, rawOutput);
      return;
    }
    if (this.streamsText || (format === 'text' && !jmes)) {
      const [first, ...rest] = result.results;
      if (!this.wroteText) this.writeText(first?.generated_text ?? '', first?.generated_tokens);
      for (const item of rest) {
        if (this.wroteText && this.lastChar !== '\n') this.ctx.out.raw('\n');
        this.writeText(item.generated_text, item.generated_tokens);
      }
      if (this.wroteText && this.lastChar !== '\n') this.ctx.out.raw('\n');
      // The key goes after the text, so it never splits a line of it; with -q a person asked for the text alone.
      // A key without its colours says nothing, so none when stderr is not coloured.
      if (this.painted && !this.ctx.reporter.quiet && this.ctx.terminal.color) {
        await this.ctx.out.flush(); // on a shared screen the key must follow the text it explains
        this.ctx.stderr.write(logprobLegend(true));
      }
      return;
    }
    if (this.streamsLines) {
      // A stream that delivered no chunk (the provider answered whole) still owes its one line.
      if (rawBody !== undefined) this.ctx.out.json(`${JSON.stringify(inCanonicalOrder(result))}\n`);
      return;
    }
    await this.structured(inCanonicalOrder(result), jmes, format, rawOutput);
  }

  private async structured(
    value: unknown,
    jmes: string | undefined,
    format: OutputFormat,
    rawOutput: boolean,
  ): Promise<void> {
    const { structuredText, writeStructured } = await import('../output/structured.js');
    writeStructured(this.ctx.out, await structuredText(value, jmes, format, rawOutput), format, rawOutput);
  }
}
