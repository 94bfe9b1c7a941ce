/**
 * A push-to-pull queue: the upstream's reader pushes pieces as its events arrive, the route pulls them as steps.
 * Each piece is handed on the moment it is pushed when the route is waiting (nothing is held back), and kept in
 * order when the route is still writing the previous one.
 */
export class StepQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private waiter: ((result: IteratorResult<T>) => void) | undefined;
  private failWaiter: ((error: unknown) => void) | undefined;
  private over = false;
  private error: unknown;
  private failed = false;

  push(item: T): void {
    if (this.over) return;
    const wake = this.waiter;
    if (wake) {
      this.waiter = this.failWaiter = undefined;
      wake({ value: item, done: false });
    } else this.items.push(item);
  }

  end(): void {
    if (this.over) return;
    this.over = true;
    const wake = this.waiter;
    this.waiter = this.failWaiter = undefined;
    wake?.({ value: undefined, done: true });
  }

  /** The reader is gone: what is queued is dropped, and every later pull is done. */
  drop(): void {
    this.items.length = 0;
    this.end();
  }

  fail(error: unknown): void {
    if (this.over) return;
    this.over = true;
    this.failed = true;
    this.error = error;
    const wake = this.failWaiter;
    this.waiter = this.failWaiter = undefined;
    wake?.(error);
  }

  private next(): Promise<IteratorResult<T>> {
    if (this.items.length > 0) return Promise.resolve({ value: this.items.shift()!, done: false });
    if (this.failed) return Promise.reject(this.error);
    if (this.over) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.waiter = resolve;
      this.failWaiter = reject;
    });
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return { next: () => this.next() };
  }
}
