/**
 * The files and batches one running server keeps: in memory, bounded, gone with the server. Per-scope limits
 * (files, active batches) are the dialect's (types.ts BatchLimits) and refused by its routes; the store's own bounds
 * below keep a long-running `serve` from growing without end whatever the dialects allow.
 */
import { randomBytes } from 'node:crypto';
import { type BatchRecord, type StoredFile, TERMINAL_STATUSES } from './types.js';

/** All files together, inputs and outputs: past it an upload is refused (413) until files are deleted. */
export const MAX_STORED_BYTES = 1024 * 1024 * 1024;
/** Batches kept, finished ones included; past it the oldest finished batch is forgotten. */
export const MAX_KEPT_BATCHES = 1000;

export interface Page<T> {
  data: T[];
  hasMore: boolean;
}

export class BatchStore {
  private readonly files = new Map<string, StoredFile>();
  private readonly batches = new Map<string, BatchRecord>();
  private storedBytes = 0;

  /** Ids in the services' forms: `file-…` and `batch_…` (24 hex digits here). */
  newId(prefix: string): string {
    return `${prefix}${randomBytes(12).toString('hex')}`;
  }

  /** Whether `bytes` more fit in the store. */
  hasRoomFor(bytes: number): boolean {
    return this.storedBytes + bytes <= MAX_STORED_BYTES;
  }

  filesIn(scope: string): number {
    let n = 0;
    for (const f of this.files.values()) if (f.scope === scope) n++;
    return n;
  }

  putFile(file: StoredFile): void {
    this.files.set(file.id, file);
    this.storedBytes += file.bytes;
  }

  file(id: string, scope: string): StoredFile | undefined {
    const file = this.files.get(id);
    return file?.scope === scope ? file : undefined;
  }

  deleteFile(id: string, scope: string): boolean {
    const file = this.file(id, scope);
    if (!file) return false;
    this.files.delete(id);
    this.storedBytes -= file.bytes;
    return true;
  }

  /** Newest first unless `order` is asc; `after` is the id the page starts after. */
  listFiles(
    scope: string,
    options: { after?: string; limit: number; order: 'asc' | 'desc'; purpose?: string },
  ): Page<StoredFile> | { unknownAfter: true } {
    let list = [...this.files.values()].filter(
      (f) => f.scope === scope && (options.purpose === undefined || f.purpose === options.purpose),
    );
    if (options.order === 'desc') list.reverse();
    if (options.after !== undefined) {
      const at = list.findIndex((f) => f.id === options.after);
      if (at < 0) return { unknownAfter: true };
      list = list.slice(at + 1);
    }
    return { data: list.slice(0, options.limit), hasMore: list.length > options.limit };
  }

  activeBatchesIn(scope: string): number {
    let n = 0;
    for (const b of this.batches.values()) if (b.scope === scope && !TERMINAL_STATUSES.has(b.status)) n++;
    return n;
  }

  putBatch(batch: BatchRecord): void {
    this.batches.set(batch.id, batch);
    if (this.batches.size <= MAX_KEPT_BATCHES) return;
    for (const [id, old] of this.batches)
      if (TERMINAL_STATUSES.has(old.status)) {
        this.batches.delete(id);
        break;
      }
  }

  batch(id: string, scope: string, dialect: string): BatchRecord | undefined {
    const batch = this.batches.get(id);
    return batch?.scope === scope && batch.dialect === dialect ? batch : undefined;
  }

  /** Newest first, as the services list them. */
  listBatches(
    scope: string,
    dialect: string,
    options: { after?: string; limit: number },
  ): Page<BatchRecord> | { unknownAfter: true } {
    let list = [...this.batches.values()].filter((b) => b.scope === scope && b.dialect === dialect).reverse();
    if (options.after !== undefined) {
      const at = list.findIndex((b) => b.id === options.after);
      if (at < 0) return { unknownAfter: true };
      list = list.slice(at + 1);
    }
    return { data: list.slice(0, options.limit), hasMore: list.length > options.limit };
  }
}

/** Keyed by the server's `closed` signal (one per running server, shared by its internal requests). */
const stores = new WeakMap<AbortSignal, BatchStore>();

export function batchStoreOf(server: { closed: AbortSignal }): BatchStore {
  let store = stores.get(server.closed);
  if (!store) {
    store = new BatchStore();
    stores.set(server.closed, store);
  }
  return store;
}
