/**
 * The source's next line, or 'aborted' as soon as Ctrl-C comes (stdin may never answer). Not Promise.race with one
 * shared abort promise: every race would leave a reaction on it, a leak of one per line.
 */
export function nextUnlessAborted<T>(
  it: AsyncIterator<T>,
  signal: AbortSignal,
): Promise<IteratorResult<T> | 'aborted'> {
  if (signal.aborted) return Promise.resolve('aborted');
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve('aborted');
    signal.addEventListener('abort', onAbort, { once: true });
    it.next().then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}
