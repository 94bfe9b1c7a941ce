/**
 * A set of short-lived members (requests in flight, lines running, exchanges waiting) held by a long-lived owner.
 *
 * Why not a `Set`: on Node 20's V8 (11.3) a `Set` or `Map` that lives in the old generation keeps each member it
 * ever held reachable for the scavenger after `delete`, until the table is next rebuilt, so every short-lived member
 * (and all it points to: a request's answer, a line's payload) survives two scavenges and is promoted, to be freed
 * only by a full collection. Measured: 3 million members, 64 at a time, 14 MB promoted every other scavenge and 820 ms
 * of scavenges against none and 175 ms for this array (the slot a member leaves is cleared).
 *
 * Members are kept in an array; `delete` moves the last member into the freed slot, so order is not kept, and
 * iterating walks a copy, so members may be added or deleted meanwhile (aborting everything in flight deletes each).
 *
 * Leaf module.
 */

/** A member's place in its set, from `add`; `delete` takes it back. */
export interface Membership {
  /** @internal the member's index, -1 once deleted */
  index: number;
}

export class LiveSet<T> implements Iterable<T> {
  readonly #members: T[] = [];
  readonly #places: Membership[] = [];

  get size(): number {
    return this.#members.length;
  }

  add(member: T): Membership {
    const place: Membership = { index: this.#members.length };
    this.#members.push(member);
    this.#places.push(place);
    return place;
  }

  /** False when that membership was already deleted. */
  delete(place: Membership): boolean {
    const i = place.index;
    if (i < 0) return false;
    const last = this.#members.length - 1;
    if (i !== last) {
      this.#members[i] = this.#members[last] as T;
      const moved = this.#places[last] as Membership;
      this.#places[i] = moved;
      moved.index = i;
    }
    // pop, not a shorter length: V8 clears the popped slot, so the old array points at nothing that left.
    this.#members.pop();
    this.#places.pop();
    place.index = -1;
    return true;
  }

  [Symbol.iterator](): Iterator<T> {
    return this.#members.slice()[Symbol.iterator]();
  }
}
