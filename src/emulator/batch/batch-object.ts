import type { BatchRecord } from './types.js';

/**
 * The fields every dialect's batch object has in common, in the services' order (OpenAI's Batch, Azure's, and
 * watsonx's, which copies them): the files, the status, the life-cycle timestamps (null until reached) and the counts.
 */
export function batchLifeCycleFields(b: BatchRecord): Record<string, unknown> {
  const at = (t: number | undefined) => t ?? null;
  return {
    input_file_id: b.inputFileId,
    completion_window: b.completionWindow,
    status: b.status,
    output_file_id: b.outputFileId,
    error_file_id: b.errorFileId,
    created_at: b.createdAt,
    in_progress_at: at(b.times.in_progress_at),
    expires_at: b.expiresAt,
    finalizing_at: at(b.times.finalizing_at),
    completed_at: at(b.times.completed_at),
    failed_at: at(b.times.failed_at),
    expired_at: at(b.times.expired_at),
    cancelling_at: at(b.times.cancelling_at),
    cancelled_at: at(b.times.cancelled_at),
    request_counts: { ...b.counts },
  };
}
