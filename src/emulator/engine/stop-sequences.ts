/**
 * Stop sequences over streamed text. A match may span tokens, and with include_stop_sequence
 * false the matched text must never reach the client, so text that could be the start of a
 * stop sequence is held back until it is known not to be one.
 */
export class StopSequences {
  private readonly stops: string[];

  constructor(
    stops: readonly string[] | undefined,
    private readonly include: boolean,
  ) {
    this.stops = (stops ?? []).filter((s) => s.length > 0);
  }

  get active(): boolean {
    return this.stops.length > 0;
  }

  /**
   * Looks for a stop sequence that ends in the newest token (text after `previousLength`).
   * Returns the length the generated text is cut to, or undefined when nothing matched.
   */
  match(text: string, previousLength: number): number | undefined {
    let best: { start: number; end: number } | undefined;
    for (const stop of this.stops) {
      const start = text.indexOf(stop, Math.max(0, previousLength - stop.length + 1));
      if (start >= 0 && (best === undefined || start < best.start)) best = { start, end: start + stop.length };
    }
    if (best === undefined) return undefined;
    return this.include ? best.end : best.start;
  }

  /** How much of `text` may be sent before the generation ends. */
  emittable(text: string): number {
    if (this.include) return text.length;
    let hold = 0;
    for (const stop of this.stops) {
      for (let n = Math.min(stop.length - 1, text.length); n > hold; n--) {
        if (text.endsWith(stop.slice(0, n))) {
          hold = n;
          break;
        }
      }
    }
    return text.length - hold;
  }
}
