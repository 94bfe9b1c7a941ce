/**
 * No silent success for streams: a 2xx event stream that held no event of the protocol's shape (a chat-completions
 * stream where completions were asked for, a stream of unknown events, nothing but an end marker) ends in one
 * UnexpectedAnswer (exit 4) quoting what came, instead of printing nothing and exiting 0. Events of other shapes
 * beside good ones (annotations, keep-alives) are fine.
 */
import { UnexpectedAnswer, type AnswerContext } from '../contract/errors.js';
import type { SseEvent } from '../contract/http.js';
import type { StreamStepOf } from '../contract/adapter.js';

/** Characters of event data kept for the excerpt. */
const KEPT = 400;

export class StreamShape {
  private chunks = 0;
  private problem: string | undefined;
  private seen = '';

  /** Records one decoded event. */
  see(event: SseEvent, step: StreamStepOf<unknown>): void {
    if (step.type === 'chunk') {
      this.chunks += 1;
      return;
    }
    if (this.chunks > 0) return;
    if (step.type === 'ignore' && step.unexpected !== undefined) this.problem ??= step.unexpected;
    if (this.seen.length < KEPT)
      this.seen +=
        `${this.seen === '' ? '' : ' '}${event.event && event.event !== 'message' ? `event: ${event.event} ` : ''}data: ${event.data}`.slice(
          0,
          KEPT,
        );
  }

  /**
   * At the end of a stream that broke off neither by error nor by interrupt: the UnexpectedAnswer owed when nothing
   * of the protocol's shape came. `ended` says the stream ended with its end marker; a stream that simply stopped
   * after no events at all is left to the caller when the protocol states its stop reason (a cut-off stream, exit 6).
   */
  verdict(
    context: Omit<AnswerContext, 'body'>,
    ended: boolean,
    statesStopReason: boolean,
  ): UnexpectedAnswer | undefined {
    if (this.chunks > 0) return undefined;
    if (this.problem !== undefined) return new UnexpectedAnswer(this.problem, { ...context, body: this.seen });
    if (!ended && statesStopReason) return undefined;
    return new UnexpectedAnswer('the event stream held no generation event', { ...context, body: this.seen });
  }
}
