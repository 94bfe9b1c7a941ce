/**
 * Where a value lives in the user's terms, apart from ./validate-option.ts so that a caller can say where its
 * values come from without loading zod (./plain-parameters.ts).
 */

/** Where a value lives in the user's terms: the flag (or source) that supplied it, and the path inside it. */
export interface IssueSite {
  owner: string;
  field: readonly PropertyKey[];
}

/** Maps a path inside the validated value to the flag or source the user wrote it in. */
export type Locator = (path: readonly PropertyKey[]) => IssueSite;

/** Everything under one flag or source: `--parameters` → "--parameters: top_k …". */
export const within =
  (owner: string): Locator =>
  (path) => ({ owner, field: path });
