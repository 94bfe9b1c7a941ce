import { echoLength } from './token-data.js';

/** What one stream chunk of a completion contributes once the echoed prompt is split off. */
export interface EchoSplit {
  text: string;
  completionTokens: unknown;
  logProbs: unknown;
  /** Characters of echoed prompt at the start of `completionTokens`/`logProbs`. */
  skipChars: number;
  /** The echoed prompt, on the one chunk where it became known. */
  echoed?: string;
}

/**
 * With `echo`, a streamed completion starts with the prompt, possibly spread over several chunks. Text (and its token
 * data) is held back while it could still be part of the prompt; once it cannot, or the completion ends, the prompt
 * is split off and everything after it is released. Without echo, chunks pass straight through.
 */
export class StreamEcho {
  private pending = '';
  private readonly tokens: unknown[] = [];
  private readonly logProbs: unknown[] = [];
  private sawTokens = false;
  private sawLogProbs = false;
  private done: boolean;

  constructor(private readonly prompt: string | undefined) {
    this.done = prompt === undefined;
  }

  /** Undefined while the text is held back. `final`: the completion is over, release whatever is held. */
  push(text: string, completionTokens: unknown, logProbs: unknown, final: boolean): EchoSplit | undefined {
    if (this.done) return { text, completionTokens, logProbs, skipChars: 0 };
    const prompt = this.prompt as string;
    this.pending += text;
    if (Array.isArray(completionTokens)) {
      this.tokens.push(...(completionTokens as unknown[]));
      this.sawTokens = true;
    }
    if (Array.isArray(logProbs)) {
      this.logProbs.push(...(logProbs as unknown[]));
      this.sawLogProbs = true;
    }
    if (!final && this.pending.length < prompt.length && prompt.startsWith(this.pending)) return undefined;
    this.done = true;
    const skip = echoLength(this.pending, prompt);
    return {
      text: this.pending.slice(skip),
      completionTokens: this.sawTokens ? this.tokens : undefined,
      logProbs: this.sawLogProbs ? this.logProbs : undefined,
      skipChars: skip,
      echoed: this.pending.slice(0, skip) || prompt,
    };
  }
}
