/**
 * Own enumerable properties computed when read, without a cost that an object literal's `get x() {…}` has on Node 20's
 * V8 (11.3): every literal with an accessor allocates its accessor pair in the old generation, pointing at that
 * object's own getter closure. The next scavenges treat that old pointer as a root, so everything the closure reaches
 * (a token's alternatives, a generation's state, a whole upstream call) survives them and is promoted, to be freed only
 * by a full collection. Measured: ~1.7 µs per object and 2.2 s of scavenges for 2 million tokens, against 0.35 µs and
 * 9 ms with the accessors defined here; serve's scavenges promoted 2–5 MB each instead of nothing.
 *
 * The accessors here are shared by every object (one pair per property name, made once), and each object keeps its own
 * reader in a hidden (non-enumerable, symbol-keyed) slot, so `JSON.stringify`, spreading, `Object.keys` and deep
 * equality see the same object as with the literal. `test/unit/lazy-property.test.ts` pins both.
 *
 * Leaf module: imported by the engines, the gateway and the server routes.
 */

/** The hidden per-object state of one property: its reader, or once read (lazy) or assigned, its value. */
interface Slot {
  read: (() => unknown) | undefined;
  value: unknown;
}

interface Kind {
  readonly slot: symbol;
  readonly accessor: PropertyDescriptor;
}

const lazyKinds = new Map<string, Kind>();
const liveKinds = new Map<string, Kind>();

function kindOf(kinds: Map<string, Kind>, key: string, memo: boolean): Kind {
  let kind = kinds.get(key);
  if (kind) return kind;
  const slot = Symbol(key);
  // Object, not a TypeScript type, on purpose: `this` is any object these accessors were put on.
  const state = (self: object): Slot => (self as Record<symbol, Slot>)[slot] as Slot;
  kind = {
    slot,
    accessor: {
      get(this: object): unknown {
        const s = state(this);
        if (s.read === undefined) return s.value;
        if (!memo) return s.read();
        s.value = s.read();
        s.read = undefined;
        return s.value;
      },
      // Whoever assigns gets what they assigned back, as from a plain writable property.
      set(this: object, value: unknown): void {
        const s = state(this);
        s.read = undefined;
        s.value = value;
      },
      enumerable: true,
      configurable: true,
    },
  };
  kinds.set(key, kind);
  return kind;
}

function define<T extends object>(target: T, kind: Kind, key: string, read: () => unknown): void {
  const slot: Slot = { read, value: undefined };
  Object.defineProperty(target, kind.slot, { value: slot, writable: false, enumerable: false, configurable: false });
  Object.defineProperty(target, key, kind.accessor);
}

/** Adds `key` to `target`: computed by `compute` on its first read and kept; assignable. Returns `target`. */
export function withLazy<T extends object, K extends string, V>(
  target: T,
  key: K,
  compute: () => V,
): T & { [P in K]: V } {
  define(target, kindOf(lazyKinds, key, true), key, compute);
  return target as T & { [P in K]: V };
}

/** Adds `key` to `target`: `read()` on every read (a value that changes while the object lives). Returns `target`. */
export function withReadThrough<T extends object, K extends string, V>(
  target: T,
  key: K,
  read: () => V,
): T & { readonly [P in K]: V } {
  define(target, kindOf(liveKinds, key, false), key, read);
  return target as T & { readonly [P in K]: V };
}
