/**
 * The answer shapes IBM's `@ibm-cloud/watsonx-ai` SDK declares in its TypeScript types, as zod schemas for checking
 * at run time. Each schema is tied to the SDK's type at compile time (`fits`): if a schema left out a field the type
 * requires, or typed it otherwise, `npm run typecheck` fails — so "the answer parses" means "the answer has the shape
 * the SDK's types declare". Fields the types leave optional are optional here too; values are the tests' business.
 */
import { z } from 'zod';
import type {
  DeploymentResource,
  DeploymentResourceCollection,
  EmbeddingsResponse,
  FoundationModel,
  FoundationModels,
  FoundationModelTask,
  FoundationModelTasks,
  ObjectStreamed,
  TextGenResponse,
  TextTokenizeResponse,
} from '@ibm-cloud/watsonx-ai';

/** Compiles only when what the schema accepts is assignable to the SDK's type. */
function fits<T>() {
  return <S extends z.ZodType<T>>(schema: S): S => schema;
}

const warning = z.object({
  message: z.string(),
  id: z.string().optional(),
  more_info: z.string().optional(),
  additional_properties: z.record(z.string(), z.unknown()).optional(),
});
const system = z.object({ warnings: z.array(warning).optional() });
const href = z.object({ href: z.url() });

const tokenInfo = z.object({
  text: z.string().optional(),
  logprob: z.number().optional(),
  rank: z.number().int().optional(),
  top_tokens: z.array(z.object({ text: z.string().optional(), logprob: z.number().optional() })).optional(),
});

export const textGenResponse = fits<TextGenResponse>()(
  z.object({
    model_id: z.string(),
    model_version: z.string().optional(),
    created_at: z.iso.datetime(),
    results: z
      .array(
        z.object({
          generated_text: z.string(),
          stop_reason: z.enum([
            'not_finished',
            'max_tokens',
            'eos_token',
            'cancelled',
            'time_limit',
            'stop_sequence',
            'token_limit',
            'error',
          ]),
          generated_token_count: z.number().int().min(0).optional(),
          input_token_count: z.number().int().min(0).optional(),
          seed: z.number().int().optional(),
          generated_tokens: z.array(tokenInfo).optional(),
          input_tokens: z.array(tokenInfo).optional(),
        }),
      )
      .min(1),
    system: system.optional(),
  }),
);

export const streamedTextGen = fits<ObjectStreamed<TextGenResponse>>()(
  z.object({ id: z.number().int(), event: z.string(), data: textGenResponse }),
);

export const tokenizeResponse = fits<TextTokenizeResponse>()(
  z.object({
    model_id: z.string(),
    result: z.object({ token_count: z.number().int().min(0), tokens: z.array(z.string()).optional() }),
  }),
);

export const embeddingsResponse = fits<EmbeddingsResponse>()(
  z.object({
    model_id: z.string(),
    results: z.array(z.object({ input: z.string().optional(), embedding: z.array(z.number()) })),
    created_at: z.iso.datetime(),
    input_token_count: z.number().int().min(0),
    system: system.optional(),
  }),
);

const lifecycle = z.object({
  id: z.enum(['available', 'deprecated', 'constricted', 'withdrawn']),
  label: z.string().optional(),
  start_date: z.iso.date().optional(),
  alternative_model_ids: z.array(z.string()).optional(),
  url: z.string().optional(),
});

export const foundationModel = fits<FoundationModel>()(
  z.object({
    model_id: z.string(),
    label: z.string(),
    provider: z.string(),
    short_description: z.string(),
    input_tier: z.string(),
    output_tier: z.string(),
    source: z.string(),
    number_params: z.string(),
    tasks: z.array(z.object({ id: z.string() })).optional(),
    model_limits: z.object({ max_sequence_length: z.number().int().positive().optional() }).optional(),
    lifecycle: z.array(lifecycle).optional(),
    /** Not in the SDK's type, but in the service's answer, and what `filters=function_*` selects on. */
    functions: z.array(z.object({ id: z.string() })),
  }),
);

export const foundationModels = fits<FoundationModels>()(
  z.object({
    total_count: z.number().int().optional(),
    limit: z.number().int(),
    first: href,
    next: href.optional(),
    resources: z.array(foundationModel).optional(),
    system: system.optional(),
  }),
);

export const foundationModelTask = fits<FoundationModelTask>()(
  z.object({ task_id: z.string(), label: z.string(), description: z.string().optional(), rank: z.number().int() }),
);

export const foundationModelTasks = fits<FoundationModelTasks>()(
  z.object({
    total_count: z.number().int().optional(),
    limit: z.number().int(),
    first: href,
    next: href.optional(),
    resources: z.array(foundationModelTask).optional(),
    system: system.optional(),
  }),
);

export const deploymentResource = fits<DeploymentResource>()(
  z.object({
    metadata: z.object({
      id: z.string(),
      created_at: z.iso.datetime(),
      modified_at: z.iso.datetime().optional(),
      name: z.string().optional(),
      description: z.string().optional(),
      owner: z.string().optional(),
      space_id: z.string().optional(),
      project_id: z.string().optional(),
    }),
    entity: z.object({
      online: z.object({ parameters: z.object({ serving_name: z.string().optional() }).optional() }),
      prompt_template: z.object({ id: z.string() }).optional(),
      asset: z.object({ id: z.string() }).optional(),
      base_model_id: z.string().optional(),
      deployed_asset_type: z.enum(['prompt_tune', 'foundation_model', 'custom_foundation_model']).optional(),
      status: z
        .object({
          state: z.enum(['initializing', 'updating', 'ready', 'failed']).optional(),
          inference: z
            .array(z.object({ url: z.url(), sse: z.boolean().optional(), uses_serving_name: z.boolean().optional() }))
            .optional(),
        })
        .optional(),
    }),
  }),
);

export const deploymentResources = fits<DeploymentResourceCollection>()(
  z.object({
    total_count: z.number().int().optional(),
    limit: z.number().int(),
    first: href,
    next: href.optional(),
    resources: z.array(deploymentResource).optional(),
  }),
);

/** The parsed value, or a test failure listing every problem. */
export function shaped<S extends z.ZodType>(schema: S, value: unknown, what: string): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw new Error(`${what} does not have the shape the SDK's types declare: ${JSON.stringify(parsed.error.issues)}`);
  return parsed.data;
}
