/**
 * The responses `serve` keeps (`store`, which is true unless the request says false), so that
 * `previous_response_id`, `GET /v1/responses/{id}` and `item_reference` input items find them, as on OpenAI.
 * In memory, one store per running server, bounded: past `MAX_STORED_RESPONSES` the least recently used goes.
 */
import type { ServerServices } from '../../../src/emulator/core/router.js';
import type { TurnMessage } from '../../../src/emulator/engine/structured-answer.js';

/** Enough for any test or session; a long-running `serve` does not grow without bound. */
export const MAX_STORED_RESPONSES = 1000;

export interface StoredResponse {
  /** The Response object as it was answered (and as GET answers it). */
  response: Record<string, unknown>;
  /** The conversation up to and including this response's answer, as the engine read it. */
  conversation: TurnMessage[];
  /** The output items by id, for `item_reference` inputs. */
  items: Map<string, Record<string, unknown>>;
}

export class ResponsesStore {
  /** A Map keeps insertion order: re-inserting on use makes its first key the least recently used. */
  private readonly entries = new Map<string, StoredResponse>();

  constructor(private readonly max = MAX_STORED_RESPONSES) {}

  get(id: string): StoredResponse | undefined {
    const entry = this.entries.get(id);
    if (entry === undefined) return undefined;
    this.entries.delete(id);
    this.entries.set(id, entry);
    return entry;
  }

  /** An output item of any kept response, without touching the order (an item is not a use of its response). */
  item(id: string): Record<string, unknown> | undefined {
    for (const entry of this.entries.values()) {
      const item = entry.items.get(id);
      if (item !== undefined) return item;
    }
    return undefined;
  }

  put(id: string, entry: StoredResponse): void {
    this.entries.delete(id);
    this.entries.set(id, entry);
    while (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value as string);
  }

  /** True when there was one to delete. */
  delete(id: string): boolean {
    return this.entries.delete(id);
  }

  get size(): number {
    return this.entries.size;
  }
}

/**
 * Keyed by the server's `closed` signal: each running server has its own store, gone with the server, and the
 * requests it runs itself (a batch's `/v1/responses` lines, ServerServices.dispatch) share it.
 */
const stores = new WeakMap<AbortSignal, ResponsesStore>();

export function responsesStoreOf(server: ServerServices): ResponsesStore {
  let store = stores.get(server.closed);
  if (store === undefined) {
    store = new ResponsesStore();
    stores.set(server.closed, store);
  }
  return store;
}
