/**
 * Runs an async function over items with at most `limit` calls in flight, results in the items' order. The first
 * failure stops new calls from starting; the calls already running are waited for, then that failure is thrown,
 * so nothing is left running behind the caller's back.
 */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  async function worker(): Promise<void> {
    while (failure === undefined && next < items.length) {
      const i = next++;
      try {
        results[i] = await fn(items[i]!, i);
      } catch (error) {
        failure ??= { error };
      }
    }
  }
  const workers = Math.max(1, Math.min(Math.floor(limit), items.length));
  await Promise.all(Array.from({ length: workers }, () => worker()));
  if (failure !== undefined) throw failure.error;
  return results;
}
