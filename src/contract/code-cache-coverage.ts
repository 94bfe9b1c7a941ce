/**
 * Whether this run is the shape the command's V8 code cache should keep (src/cli/launch/compile-cache.ts).
 *
 * V8 stores every function a run has compiled, and every later run deserialises all of it. A run that did
 * one-off work — parsing and checking a config file that ./../config/parsed-cache.ts then recorded, so that the
 * next runs skip it — would leave that code (yaml and zod: 280 kB of the 800 kB cache of a request, when they were
 * in the request's bundle; dist/run.cjs, every other command's, still holds them) in the cache of every run after it. Such a run says so here, and the launcher writes no cache after it; the next, typical run
 * writes it. A cache once written is never made smaller, so this only decides what the first one holds.
 */
let oneOff: string | undefined;

/** Marks this run as one whose compiled code later runs will not need; `why` is for debugging only. */
export function markOneOffRun(why: string): void {
  oneOff ??= why;
}

/** Why this run should not write the code cache, or undefined when it should. */
export function oneOffRun(): string | undefined {
  return oneOff;
}
