/**
 * How many requests a batch keeps in flight, AIMD-style (as TCP does): a 429 halves the limit, once per throttle
 * episode (the other requests already in flight answer 429 too and must not halve it again and again); then it
 * grows back by one after every `limit` successes (about one round of requests) up to --concurrency.
 */
export class AdaptiveLimit {
  #limit: number;
  #successes = 0;
  /** Until then, further 429s belong to the episode that already lowered the limit. */
  #episodeEnds = 0;

  constructor(readonly max: number) {
    this.#limit = max;
  }

  get limit(): number {
    return this.#limit;
  }

  onSuccess(): void {
    if (this.#limit >= this.max) return;
    this.#successes++;
    if (this.#successes >= this.#limit) {
      this.#successes = 0;
      this.#limit++;
    }
  }

  /** A 429 at `now`; the service asked for a pause until `resumeAt`. Returns true when the limit was lowered. */
  onThrottle(now: number, resumeAt: number): boolean {
    if (now < this.#episodeEnds) return false;
    this.#limit = Math.max(1, Math.floor(this.#limit / 2));
    this.#successes = 0;
    this.#episodeEnds = Math.max(resumeAt, now + 1);
    return true;
  }
}
