/**
 * Merges `over` onto `base`: plain objects merge key by key (return_options, length_penalty,
 * prompt_variables), everything else — arrays included — is replaced. Neither input is changed.
 */
export function deepMerge<T extends object>(base: T, over: Partial<T>): T {
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [key, value] of Object.entries(over)) {
    if (value === undefined) continue;
    const current = out[key];
    const merged =
      isPlainObject(current) && isPlainObject(value) ? deepMerge<Record<string, unknown>>(current, value) : value;
    // defineProperty, not assignment: a "__proto__" key from user JSON must stay a plain key.
    Object.defineProperty(out, key, { value: merged, enumerable: true, writable: true, configurable: true });
  }
  return out as T;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
