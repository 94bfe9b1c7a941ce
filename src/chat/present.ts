/**
 * What reaches stdout for a chat answer, as for generations (src/generation/present.ts): `text` writes the answer
 * as it arrives (with several answers, the first streams and the others follow it); `jsonl` one canonical chunk per
 * line; `--raw` the provider's own events or body; `json`/`yaml` and `-j` the canonical result at the end.
 */
import type { Context } from '../context.js';
import type { OutputFormat } from '../output/format.js';
import type { ChatChunk, ChatResult } from '../contract/chat.js';
import { chatInCanonicalOrder } from './aggregate.js';

export interface ChatPresentOptions {
  format: OutputFormat;
  jmes?: string | undefined;
  rawOutput: boolean;
  raw: boolean;
  /** The user asked for a stream: pieces go out as they arrive. */
  live: boolean;
}

export class ChatPresenter {
  private wroteText = false;
  private lastChar = '';
  private readonly rawEvents: unknown[] = [];
  private readonly streamsText: boolean;
  private readonly streamsLines: boolean;

  constructor(
    private readonly ctx: Context,
    private readonly opts: ChatPresentOptions,
  ) {
    this.streamsText = opts.live && opts.format === 'text' && !opts.jmes && !opts.raw;
    this.streamsLines = opts.live && !opts.jmes && (opts.format === 'jsonl' || (opts.raw && opts.format === 'text'));
  }

  /** Whether any answer text has been written (the interactive loop needs to know where the line ends). */
  get wroteAnything(): boolean {
    return this.wroteText;
  }

  private writeText(text: string): void {
    if (!text) return;
    // The service's words: escaped on a terminal by the sink (src/output/safe-write.ts).
    this.ctx.out.text(text);
    this.wroteText = true;
    this.lastChar = text[text.length - 1] as string;
  }

  chunk(chunk: ChatChunk, rawEvent: unknown): void {
    if (this.opts.raw) {
      if (this.streamsLines) this.ctx.out.json(`${JSON.stringify(rawEvent)}\n`);
      else this.rawEvents.push(rawEvent);
    } else if (this.streamsText) {
      for (const c of chunk.choices) if (c.index === 0) this.writeText(c.content);
    } else if (this.streamsLines) {
      this.ctx.out.json(`${JSON.stringify(chunk)}\n`);
    }
  }

  /** The end of an answer — complete, broken off or interrupted: whatever is still owed to stdout. */
  async finish(result: ChatResult, rawBody?: { text: string; json: unknown }): Promise<void> {
    const { format, jmes, rawOutput } = this.opts;
    if (this.opts.raw) {
      if (rawBody === undefined && this.streamsLines) return;
      if (rawBody !== undefined && !jmes && format === 'text') {
        this.ctx.out.text(rawBody.text.endsWith('\n') ? rawBody.text : `${rawBody.text}\n`);
        return;
      }
      await this.structured(rawBody ? rawBody.json : this.rawEvents, jmes, format, rawOutput);
      return;
    }
    if (this.streamsText || (format === 'text' && !jmes)) {
      const [first, ...rest] = result.choices;
      if (!this.wroteText) this.writeText(first?.message.content ?? '');
      for (const c of rest) {
        if (this.wroteText && this.lastChar !== '\n') this.ctx.out.raw('\n');
        this.writeText(c.message.content);
      }
      if (this.wroteText && this.lastChar !== '\n') this.ctx.out.raw('\n');
      return;
    }
    if (this.streamsLines) {
      // An answer that came whole (a server that does not stream) still owes its one line.
      if (rawBody !== undefined) this.ctx.out.json(`${JSON.stringify(chatInCanonicalOrder(result))}\n`);
      return;
    }
    await this.structured(chatInCanonicalOrder(result), jmes, format, rawOutput);
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
