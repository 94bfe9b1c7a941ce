/**
 * The batch services' wire shapes as zod schemas, written from the vendors' SDK typings — not from our code:
 * - OpenAI (`openai` 6.x, resources/files.d.ts and resources/batches.d.ts): `FileObject` (`id`, `object: "file"`,
 *   `bytes`, `created_at`, `filename`, `purpose`, `status`, optional `expires_at`/`status_details`), `FileDeleted`,
 *   `Batch` (`id`, `object: "batch"`, `endpoint`, `input_file_id`, `completion_window`, `created_at`, `status` one
 *   of the eight, the optional timestamps, `errors{object, data[{code, message, param, line}]}`, `output_file_id`,
 *   `error_file_id`, `request_counts{total, completed, failed}`, `metadata`, `model`, `usage`), `BatchCreateParams`
 *   (`input_file_id`, `endpoint`, `completion_window: "24h"`, `metadata` ≤ 16 pairs) and the cursor page
 *   (`data`, `has_more`; the SDK pages on the last item's `id` as `after`).
 * - The batch line formats the Batch API documents: input `{"custom_id","method","url","body"}`, output
 *   `{"id","custom_id","response":{"status_code","request_id","body"}|null,"error":{code,message}|null}`.
 * - Azure OpenAI's global batch: the same shapes under `/openai/files`, `/openai/batches` (`api-version` 2024-10-21
 *   or a 2024-07-01-preview or later), its deployment names as the lines' `model`.
 * - watsonx.ai (`@ibm-cloud/watsonx-ai` 1.7.x, batch_inference/types/response.d.ts): `UploadedFile` (`id`,
 *   `object`, `bytes`, `created_at`, `expires_at` — 0 when none — `filename`, `purpose`), `DeletedFile`, `Batch`
 *   (the OpenAI fields, with `errors` a list of messages or null and nullable timestamps), `BatchCollection`
 *   (`data`, `first_id`, `last_id`, `has_more`).
 */
import * as z from 'zod';

export const BATCH_STATUSES = [
  'validating',
  'failed',
  'in_progress',
  'finalizing',
  'completed',
  'expired',
  'cancelling',
  'cancelled',
] as const;

const unix = z.int().min(0);
const nullableUnix = unix.nullable();

export const openAiFileObjectSchema = z.strictObject({
  id: z.string().min(1),
  object: z.literal('file'),
  bytes: z.int().min(0),
  created_at: unix,
  filename: z.string(),
  purpose: z.enum([
    'assistants',
    'assistants_output',
    'batch',
    'batch_output',
    'fine-tune',
    'fine-tune-results',
    'vision',
    'user_data',
  ]),
  status: z.enum(['uploaded', 'processed', 'error']),
  expires_at: unix.optional(),
  status_details: z.string().nullable().optional(),
});

export const fileDeletedSchema = z.strictObject({
  id: z.string().min(1),
  deleted: z.boolean(),
  object: z.literal('file'),
});

const requestCounts = z.strictObject({ total: z.int().min(0), completed: z.int().min(0), failed: z.int().min(0) });

export const batchErrorSchema = z.strictObject({
  code: z.string(),
  message: z.string(),
  param: z.string().nullable(),
  line: z.int().min(1).nullable(),
});

const openAiBatchFields = {
  id: z.string().min(1),
  object: z.literal('batch'),
  endpoint: z.string().min(1),
  errors: z.strictObject({ object: z.literal('list'), data: z.array(batchErrorSchema) }).nullable(),
  input_file_id: z.string().min(1),
  completion_window: z.string(),
  status: z.enum(BATCH_STATUSES),
  output_file_id: z.string().nullable(),
  error_file_id: z.string().nullable(),
  created_at: unix,
  in_progress_at: nullableUnix,
  expires_at: unix,
  finalizing_at: nullableUnix,
  completed_at: nullableUnix,
  failed_at: nullableUnix,
  expired_at: nullableUnix,
  cancelling_at: nullableUnix,
  cancelled_at: nullableUnix,
  request_counts: requestCounts,
  metadata: z.record(z.string().max(64), z.string().max(512)).nullable(),
};

export const openAiBatchSchema = z.strictObject({
  ...openAiBatchFields,
  model: z.string().nullable(),
  usage: z.strictObject({
    input_tokens: z.int().min(0),
    input_tokens_details: z.strictObject({ cached_tokens: z.int().min(0) }),
    output_tokens: z.int().min(0),
    output_tokens_details: z.strictObject({ reasoning_tokens: z.int().min(0) }),
    total_tokens: z.int().min(0),
  }),
});

export const azureBatchSchema = z.strictObject(openAiBatchFields);

export const azureFileObjectSchema = openAiFileObjectSchema.omit({ expires_at: true, status_details: true });

export const batchCreateRequestSchema = z.strictObject({
  input_file_id: z.string().min(1),
  endpoint: z.string().min(1),
  completion_window: z.string().min(1),
  metadata: z.record(z.string().max(64), z.string().max(512)).nullable().optional(),
  output_expires_after: z.strictObject({ anchor: z.literal('created_at'), seconds: z.int() }).optional(),
});

export function pageSchema<T extends z.ZodType>(item: T) {
  return z.strictObject({
    object: z.literal('list'),
    data: z.array(item),
    first_id: z.string().nullable(),
    last_id: z.string().nullable(),
    has_more: z.boolean(),
  });
}

export const batchInputLineSchema = z.strictObject({
  custom_id: z.string().min(1),
  method: z.literal('POST'),
  url: z.string().min(1),
  body: z.record(z.string(), z.unknown()),
});

export const batchOutputLineSchema = z.strictObject({
  id: z.string().regex(/^batch_req_/),
  custom_id: z.string().min(1),
  response: z
    .strictObject({ status_code: z.int().min(100).max(599), request_id: z.string().min(1), body: z.unknown() })
    .nullable(),
  error: z.strictObject({ code: z.string(), message: z.string() }).nullable(),
});

export const watsonxFileSchema = z.strictObject({
  id: z.string().min(1),
  object: z.literal('file'),
  bytes: z.int().min(0),
  created_at: unix,
  expires_at: unix,
  filename: z.string(),
  purpose: z.string(),
});

export const watsonxBatchSchema = z.strictObject({
  ...openAiBatchFields,
  errors: z.array(z.string()).nullable(),
  output_file_id: z.string().nullable(),
  error_file_id: z.string().nullable(),
  metadata: z.record(z.string(), z.string()),
});
