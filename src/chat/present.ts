/**
 * What reaches stdout for a chat answer, as for generations (src/generation/present.ts): `text` writes the answer
 * as it arrives (with several answers, the first streams and the others follow it); `jsonl` one canonical chunk per
 * line; `--raw` the provider's own events or body; `json`/`yaml` and `-j` the canonical result at the end.
 */
import type { Context } from '../context.js';
import type { OutputFormat } from '../output/format.js';
import type { ChatChoice, ChatChunk, ChatResult, ToolCall } from '../contract/chat.js';
import { chatInCanonicalOrder } from './aggregate.js';

export interface ChatPresentOptions {
  format: OutputFormat;
  jmes?: string | undefined;
  rawOutput: boolean;
  raw: boolean;
  /** The user asked for a stream: pieces go out as they arrive. */
  live: boolean;
  /** The answer is a JSON document (--response-format json_*): text output prints it alone, trimmed. */
  json?: boolean;
}

/**
 * A tool call as text output prints it: `{"id", "name", "arguments"}` with the arguments parsed. Arguments that are
 * not JSON are kept as the string the service sent, with a warning (the line still parses).
 */
export function toolCallLine(call: ToolCall): { line: string; warning?: string } {
  const text = call.function.arguments;
  let args: unknown = text;
  let warning: string | undefined;
  try {
    args = text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    warning = `the arguments of tool call ${call.id} (${call.function.name}) are not JSON; printed as a string`;
  }
  return {
    line: JSON.stringify({ id: call.id, name: call.function.name, arguments: args }),
    ...(warning ? { warning } : {}),
  };
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
    // A JSON answer is printed whole, trimmed, once it is known to be one (src/chat/answer-rounds.ts checks it).
    this.streamsText = opts.live && opts.format === 'text' && !opts.jmes && !opts.raw && opts.json !== true;
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
      if (!this.wroteText)
        this.writeText(this.opts.json ? (first?.message.content ?? '').trim() : (first?.message.content ?? ''));
      this.writeCalls(first);
      for (const c of rest) {
        if (this.wroteText && this.lastChar !== '\n') this.ctx.out.raw('\n');
        this.writeText(this.opts.json ? c.message.content.trim() : c.message.content);
        this.writeCalls(c);
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

  /** Each tool call of an answer as one JSON line `{"id", "name", "arguments"}`, after the answer's text. */
  private writeCalls(choice: ChatChoice | undefined): void {
    for (const call of choice?.message.tool_calls ?? []) {
      if (this.wroteText && this.lastChar !== '\n') this.ctx.out.raw('\n');
      const { line, warning } = toolCallLine(call);
      if (warning) this.ctx.reporter.warn(warning);
      // JSON through the sink's JSON mode: on a terminal what JSON leaves raw gets JSON's own \u escapes.
      this.ctx.out.json(`${line}\n`);
      this.wroteText = true;
      this.lastChar = '\n';
    }
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
