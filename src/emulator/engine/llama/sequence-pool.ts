/**
 * The context sequences of the llama engine: one per request being generated, at most `--parallel` at once.
 * A request that finds none free waits its turn (first come, first served) until one is released or its client goes
 * away; the protocols' clients see a slower answer, never a refusal.
 */
import type { LlamaContextSequence } from './binding.js';

export class SequencePool {
  private readonly free: LlamaContextSequence[];
  private readonly waiting: Array<{ take: (s: LlamaContextSequence) => void; signal: AbortSignal | undefined }> = [];

  constructor(sequences: readonly LlamaContextSequence[]) {
    this.free = [...sequences];
  }

  /** Requests waiting for a sequence now. */
  get queued(): number {
    return this.waiting.length;
  }

  acquire(signal?: AbortSignal): Promise<LlamaContextSequence> {
    if (signal?.aborted) return Promise.reject(new Error('aborted'));
    const sequence = this.free.shift();
    if (sequence) return Promise.resolve(sequence);
    return new Promise((resolve, reject) => {
      const entry = {
        signal,
        take: (s: LlamaContextSequence) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(s);
        },
      };
      const onAbort = () => {
        const at = this.waiting.indexOf(entry);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(new Error('aborted'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(entry);
    });
  }

  release(sequence: LlamaContextSequence): void {
    const next = this.waiting.shift();
    if (next) next.take(sequence);
    else this.free.push(sequence);
  }
}
