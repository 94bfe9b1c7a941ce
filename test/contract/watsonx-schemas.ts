/**
 * watsonx.ai wire shapes as zod schemas, written from docs/protocols/watsonx.md (not from our code), so
 * tests can check both what the client sends and what the local server answers.
 *
 * Requests are strict: an unknown field or a value outside the documented range fails.
 * Responses name every documented field; TextGenResponse and errors are strict too, IAM and CPD
 * replies allow the extra fields real deployments add.
 */
import { z } from 'zod';

// ---- request ---------------------------------------------------------------------------------

const moderationDirectionSchema = z.looseObject({
  enabled: z.boolean().optional(),
  threshold: z.number().min(0).max(1).optional(),
});

const moderationDetectorSchema = z.looseObject({
  input: moderationDirectionSchema.optional(),
  output: moderationDirectionSchema.optional(),
  mask: z.looseObject({ remove_entity_value: z.boolean().optional() }).optional(),
});

/** `moderations`: hap / pii / input_ranges; extra keys allowed (the list "can be extended"). */
export const watsonxModerationsSchema = z.looseObject({
  hap: moderationDetectorSchema.optional(),
  pii: moderationDetectorSchema.optional(),
  input_ranges: z.array(z.strictObject({ start: z.int().min(0), end: z.int().min(0) })).optional(),
});

export const watsonxReturnOptionsSchema = z.strictObject({
  input_text: z.boolean().optional(),
  generated_tokens: z.boolean().optional(),
  input_tokens: z.boolean().optional(),
  token_logprobs: z.boolean().optional(),
  token_ranks: z.boolean().optional(),
  top_n_tokens: z.int().min(0).max(5).optional(),
});

const modelParameterShape = {
  decoding_method: z.enum(['greedy', 'sample']).optional(),
  length_penalty: z
    .strictObject({ decay_factor: z.number().gt(1).optional(), start_index: z.int().min(0).optional() })
    .optional(),
  max_new_tokens: z.int().min(0).optional(),
  min_new_tokens: z.int().min(0).optional(),
  random_seed: z.int().min(1).optional(),
  stop_sequences: z.array(z.string()).max(6).optional(),
  temperature: z.number().min(0).max(2).optional(),
  time_limit: z.int().gt(0).optional(),
  top_k: z.int().min(1).max(100).optional(),
  top_p: z.number().gt(0).max(1).optional(),
  repetition_penalty: z.number().min(1).max(2).optional(),
  truncate_input_tokens: z.int().min(0).optional(),
  return_options: watsonxReturnOptionsSchema.optional(),
  include_stop_sequence: z.boolean().optional(),
  typical_p: z.number().gt(0).max(1).optional(),
};

/** `parameters` of a deployment request (prompt_variables included: deployments only). */
export const watsonxParametersSchema = z.strictObject({
  ...modelParameterShape,
  prompt_variables: z.record(z.string(), z.string()).optional(),
});

/** Body of POST /ml/v1/deployments/{id_or_name}/text/generation[_stream]. */
export const watsonxGenerateRequestSchema = z.strictObject({
  input: z.string().optional(),
  parameters: watsonxParametersSchema.optional(),
  moderations: watsonxModerationsSchema.optional(),
});

/**
 * `parameters.chat` of foundation-model generation: earlier turns and a context (IBM's Node SDK integration test
 * `test/integration/watsonx-ai-ml-inference.vml_v1.test.ts` sends `{history: [{is_question, content}], context}`).
 */
const chatSchema = z.strictObject({
  history: z.array(z.strictObject({ is_question: z.boolean(), content: z.string() })).optional(),
  context: z.string().optional(),
});

/** Body of POST /ml/v1/text/generation[_stream]: model_id and exactly one of project_id / space_id. */
export const watsonxFoundationGenerateRequestSchema = z
  .strictObject({
    input: z.string().min(1),
    model_id: z.string().min(1),
    project_id: z.string().optional(),
    space_id: z.string().optional(),
    parameters: z.strictObject({ ...modelParameterShape, chat: chatSchema.optional() }).optional(),
    moderations: watsonxModerationsSchema.optional(),
  })
  .refine((b) => (b.project_id === undefined) !== (b.space_id === undefined), {
    message: 'exactly one of project_id or space_id',
  });

/**
 * Body of POST /ml/v1/text/rerank (IBM's SDK `TextRerankParams`, cpdctl `wx-ai text rerank`): model_id, inputs of
 * `{text}` (at most 1000), query, exactly one of project_id / space_id, and `parameters`.
 */
export const watsonxRerankRequestSchema = z
  .strictObject({
    model_id: z.string().min(1),
    inputs: z.array(z.strictObject({ text: z.string() })).max(1000),
    query: z.string().min(1),
    project_id: z.string().optional(),
    space_id: z.string().optional(),
    parameters: z
      .strictObject({
        truncate_input_tokens: z.int().min(1).optional(),
        return_options: z
          .strictObject({
            top_n: z.int().min(1).optional(),
            inputs: z.boolean().optional(),
            query: z.boolean().optional(),
          })
          .optional(),
      })
      .optional(),
  })
  .refine((b) => (b.project_id === undefined) !== (b.space_id === undefined), {
    message: 'exactly one of project_id or space_id',
  });

// ---- responses -------------------------------------------------------------------------------

export const watsonxStopReasonSchema = z.enum([
  'not_finished',
  'max_tokens',
  'eos_token',
  'cancelled',
  'time_limit',
  'stop_sequence',
  'token_limit',
  'error',
]);

const topTokenSchema = z.strictObject({ text: z.string().optional(), logprob: z.number().max(0).optional() });

const tokenInfoSchema = z.strictObject({
  text: z.string().optional(),
  logprob: z.number().max(0).optional(),
  rank: z.int().min(1).optional(),
  top_tokens: z.array(topTokenSchema).optional(),
});

const moderationFlagSchema = z.strictObject({
  score: z.number().min(0).max(1),
  input: z.boolean(),
  position: z.strictObject({ start: z.int().min(0), end: z.int().min(0) }),
  entity: z.string(),
  word: z.string().optional(),
});

const resultSchema = z.strictObject({
  generated_text: z.string(),
  generated_token_count: z.int().min(0),
  input_token_count: z.int().min(0),
  stop_reason: watsonxStopReasonSchema,
  seed: z.int().optional(),
  input_text: z.string().optional(),
  generated_tokens: z.array(tokenInfoSchema).optional(),
  input_tokens: z.array(tokenInfoSchema).optional(),
  moderations: z
    .looseObject({ hap: z.array(moderationFlagSchema).optional(), pii: z.array(moderationFlagSchema).optional() })
    .optional(),
});

const warningSchema = z.strictObject({
  id: z.string().optional(),
  message: z.string(),
  more_info: z.string().optional(),
  additional_properties: z.record(z.string(), z.unknown()).optional(),
});

const textGenShape = {
  model_id: z.string().min(1),
  model_version: z.string().optional(),
  created_at: z.iso.datetime(),
  results: z.array(resultSchema).min(1),
  system: z.strictObject({ warnings: z.array(warningSchema).optional() }).optional(),
};

/** The answer of the plain generation routes. */
export const watsonxTextGenResponseSchema = z.strictObject(textGenShape);

/** The JSON in one `data:` line of a generation stream: a TextGenResponse with `generated_text` as a delta. */
export const watsonxStreamEventSchema = z.strictObject({ ...textGenShape, results: z.array(resultSchema).length(1) });

/** `{"errors":[{code,message,more_info}],"trace","status_code"}`. */
export const watsonxErrorSchema = z.strictObject({
  errors: z
    .array(z.strictObject({ code: z.string().min(1), message: z.string().min(1), more_info: z.string() }))
    .min(1),
  trace: z.string().regex(/^[0-9a-f]{16,}$/),
  status_code: z.int().min(400).max(599),
});

const jwtSchema = z.string().regex(/^[\w-]+\.[\w-]+\.[\w-]+$/);

/** IBM Cloud IAM POST /identity/token reply. */
export const iamTokenResponseSchema = z.looseObject({
  access_token: jwtSchema,
  refresh_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.int().positive(),
  expiration: z.int().positive(),
});

/** IBM Cloud IAM error reply, e.g. BXNIM0415E. */
export const iamErrorSchema = z.looseObject({
  errorCode: z.string().regex(/^BXNIM\d{4}E$/),
  errorMessage: z.string().min(1),
  context: z.record(z.string(), z.unknown()),
});

/** Cloud Pak for Data POST /icp4d-api/v1/authorize reply (`token`, or `accessToken` on some versions). */
export const cpdAuthorizeResponseSchema = z
  .looseObject({
    _messageCode_: z.string(),
    message: z.string(),
    token: jwtSchema.optional(),
    accessToken: jwtSchema.optional(),
  })
  .refine((b) => b.token !== undefined || b.accessToken !== undefined, { message: 'token or accessToken' });

/** Cloud Pak for Data error reply. */
export const cpdErrorSchema = z.looseObject({ _messageCode_: z.string(), message: z.string().min(1) });

/** The answer of POST /ml/v1/text/rerank (IBM's SDK `RerankResponse`): best first. */
export const watsonxRerankResponseSchema = z.strictObject({
  model_id: z.string().min(1),
  model_version: z.string().optional(),
  results: z.array(
    z.strictObject({
      index: z.int().min(0),
      score: z.number(),
      input: z.strictObject({ text: z.string() }).optional(),
    }),
  ),
  created_at: z.iso.datetime(),
  input_token_count: z.int().min(0),
  query: z.string().optional(),
  system: z.strictObject({ warnings: z.array(warningSchema).optional() }).optional(),
});

// ---- time-series forecast: @ibm-cloud/watsonx-ai 1.7.16 TimeSeriesForecastParams / TSForecastResponse ------------

/** `schema` of a forecast (`TSForecastInputSchema`): the timestamp column is required. */
export const watsonxForecastSchemaSchema = z.strictObject({
  timestamp_column: z.string().min(1).max(100),
  id_columns: z.array(z.string()).max(10).optional(),
  freq: z.string().max(100).optional(),
  target_columns: z.array(z.string()).max(500).optional(),
});

/**
 * Body of POST /ml/v1/time_series/forecast: model_id, data (one array per column), schema, a project or a space
 * (IBM's reference example gives both), parameters.prediction_length >= 1.
 */
export const watsonxForecastRequestSchema = z
  .strictObject({
    model_id: z.string().min(1).max(256),
    data: z.record(z.string(), z.array(z.unknown())),
    schema: watsonxForecastSchemaSchema,
    project_id: z.string().length(36).optional(),
    space_id: z.string().length(36).optional(),
    parameters: z.strictObject({ prediction_length: z.int().min(1).optional() }).optional(),
  })
  .refine((b) => b.project_id !== undefined || b.space_id !== undefined, { message: 'a project_id or a space_id' });

/** The answer (`TSForecastResponse`): columnar results, one object per answer. */
export const watsonxForecastResponseSchema = z.looseObject({
  model_id: z.string(),
  created_at: z.iso.datetime(),
  results: z.array(z.record(z.string(), z.array(z.unknown()))).min(1),
  input_data_points: z.int().min(0).optional(),
  output_data_points: z.int().min(0).optional(),
});

// ---- deployments (GET /ml/v4/deployments[/{id}]): @ibm-cloud/watsonx-ai 1.7.16 DeploymentResource -------------

/** The query of a deployment listing (`ListDeploymentsParams`): a space or a project, and the service's filters. */
export const watsonxDeploymentListQuerySchema = z
  .strictObject({
    version: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
    space_id: z.string().optional(),
    project_id: z.string().optional(),
    serving_name: z.string().optional(),
    'tag.value': z.string().optional(),
    asset_id: z.string().optional(),
    prompt_template_id: z.string().optional(),
    name: z.string().optional(),
    type: z.string().optional(),
    state: z.enum(['initializing', 'updating', 'ready', 'failed']).optional(),
    conflict: z.enum(['true', 'false']).optional(),
    start: z.string().optional(),
    limit: z.string().optional(),
  })
  .refine((q) => q.space_id !== undefined || q.project_id !== undefined, { message: 'a space_id or a project_id' });

export const watsonxDeploymentResourceSchema = z.looseObject({
  metadata: z.looseObject({ id: z.string(), name: z.string().optional(), created_at: z.string() }),
  entity: z.looseObject({ deployed_asset_type: z.string().optional(), status: z.looseObject({ state: z.string() }) }),
});

/** A space as `GET /v2/spaces` lists it (`SpaceResource`), and the Watson Data API's project. */
export const watsonxSpaceResourceSchema = z.looseObject({
  metadata: z.looseObject({ id: z.string().length(36) }),
  entity: z.looseObject({ name: z.string() }),
});
export const watsonxProjectResourceSchema = z.looseObject({
  metadata: z.looseObject({ guid: z.string().length(36) }),
  entity: z.looseObject({ name: z.string() }),
});
