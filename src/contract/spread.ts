/**
 * Object spreads for the per-request and per-token paths, with the same result as the literal they replace (the same
 * keys, in the same order, `__proto__` kept as an own key) but without a cost that Node 20's V8 (11.3) has:
 *
 * An object literal that starts with a spread and then gets more keys — `{ ...a, b }`, `{ ...a, ...b }`, or
 * `{ ...a }` followed by `o.b = …` — is given a hidden class (map) of its own every time once its code is hot.
 * Measured here: about 1.3 µs per object against 0.07 µs, a map and descriptor array more to collect, and every
 * place that reads such objects sees a new shape each time (megamorphic property loads, slower JSON.stringify).
 * A literal whose first spread is of an empty object goes the generic way, which shares maps between objects of
 * the same keys. `test/unit/spread.test.ts` pins both the result and (with V8's natives) the shared maps.
 *
 * Leaf module: imported by the call pipeline, the HTTP client and the server routes.
 */
const NO_KEYS: Readonly<Record<string, never>> = Object.freeze({});

/** `{ ...a, ...b }` */
export function merged<A extends object, B extends object>(a: A, b: B): A & B {
  return { ...NO_KEYS, ...a, ...b };
}

/** `{ ...a }`, for a copy that keys are then added to. */
export function extensibleCopy<A extends object>(a: A): A {
  return { ...NO_KEYS, ...a };
}
