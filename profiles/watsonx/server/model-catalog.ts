/**
 * What the local watsonx server lists: twelve foundation model specs (enough that small `limit`s page several
 * times) and the deployments of any space or project. The engine serves every model id and deployment; these are
 * the names it admits to. Shapes follow the service's answers (FoundationModel, DeploymentResource).
 */
import { LOCAL_DEPLOYMENT_MODEL } from './generate.js';

interface SpecSeed {
  model_id: string;
  label: string;
  provider: string;
  source: string;
  short_description: string;
  tier: string;
  number_params: string;
  max_sequence_length: number;
  functions: string[];
  lifecycle?: { id: string; start_date: string }[];
}

const AVAILABLE_SINCE = [{ id: 'available', start_date: '2024-01-11' }];

const SEEDS: SpecSeed[] = [
  { model_id: 'bigscience/mt0-xxl', label: 'mt0-xxl-13b', provider: 'BigScience', source: 'Hugging Face', short_description: 'An instruction-tuned multilingual encoder-decoder model.', tier: 'class_2', number_params: '13b', max_sequence_length: 4096, functions: ['text_generation'] },
  { model_id: 'google/flan-t5-xl', label: 'flan-t5-xl-3b', provider: 'Google', source: 'Hugging Face', short_description: 'A pretrained T5 fine-tuned on a mixture of tasks, for zero- and few-shot prompts.', tier: 'class_1', number_params: '3b', max_sequence_length: 4096, functions: ['text_generation'] },
  {
    model_id: 'google/flan-ul2', label: 'flan-ul2-20b', provider: 'Google', source: 'Hugging Face', short_description: 'An encoder-decoder model trained with the UL2 objective and instruction-tuned on the Flan collection.', tier: 'class_3', number_params: '20b', max_sequence_length: 4096, functions: ['text_generation'],
    lifecycle: [{ id: 'available', start_date: '2023-07-07' }, { id: 'deprecated', start_date: '2024-12-02' }, { id: 'withdrawn', start_date: '2999-03-03' }],
  },
  { model_id: 'ibm/granite-13b-chat-v2', label: 'granite-13b-chat-v2', provider: 'IBM', source: 'IBM', short_description: 'A chat-optimised model of the Granite family.', tier: 'class_1', number_params: '13b', max_sequence_length: 8192, functions: ['text_generation'] },
  { model_id: 'ibm/granite-13b-instruct-v2', label: 'granite-13b-instruct-v2', provider: 'IBM', source: 'IBM', short_description: 'The Granite model for summarisation, extraction, classification and generation.', tier: 'class_1', number_params: '13b', max_sequence_length: 8192, functions: ['text_generation'] },
  { model_id: 'ibm/granite-20b-multilingual', label: 'granite-20b-multilingual', provider: 'IBM', source: 'IBM', short_description: 'A Granite model for English, German, Spanish, French and Portuguese.', tier: 'class_1', number_params: '20b', max_sequence_length: 8192, functions: ['text_generation'] },
  { model_id: 'ibm/granite-3-8b-instruct', label: 'granite-3-8b-instruct', provider: 'IBM', source: 'IBM', short_description: 'An open Granite 3 model tuned to follow instructions.', tier: 'class_12', number_params: '8b', max_sequence_length: 131072, functions: ['text_generation', 'text_chat'] },
  { model_id: 'ibm/slate-125m-english-rtrvr', label: 'slate-125m-english-rtrvr', provider: 'IBM', source: 'IBM', short_description: 'A retrieval embedding model for English text.', tier: 'class_c1', number_params: '125m', max_sequence_length: 512, functions: ['embedding'] },
  { model_id: 'ibm/slate-30m-english-rtrvr', label: 'slate-30m-english-rtrvr', provider: 'IBM', source: 'IBM', short_description: 'A smaller, faster retrieval embedding model for English text.', tier: 'class_c1', number_params: '30m', max_sequence_length: 512, functions: ['embedding'] },
  { model_id: 'meta-llama/llama-3-70b-instruct', label: 'llama-3-70b-instruct', provider: 'Meta', source: 'Hugging Face', short_description: 'Llama 3 with 70 billion parameters, tuned for dialogue and instructions.', tier: 'class_2', number_params: '70b', max_sequence_length: 8192, functions: ['text_generation', 'text_chat'] },
  { model_id: 'meta-llama/llama-3-8b-instruct', label: 'llama-3-8b-instruct', provider: 'Meta', source: 'Hugging Face', short_description: 'Llama 3 with 8 billion parameters, tuned for dialogue and instructions.', tier: 'class_1', number_params: '8b', max_sequence_length: 8192, functions: ['text_generation', 'text_chat'] },
  { model_id: 'mistralai/mixtral-8x7b-instruct-v01', label: 'mixtral-8x7b-instruct-v01', provider: 'Mistral AI', source: 'Hugging Face', short_description: 'A sparse mixture-of-experts model tuned to follow instructions.', tier: 'class_1', number_params: '46.7b', max_sequence_length: 32768, functions: ['text_generation'] },
];

/** The specs as the service writes them, sorted by model_id as the service sorts them. */
export const FOUNDATION_MODEL_SPECS: readonly Record<string, unknown>[] = SEEDS.map((s) => ({
  model_id: s.model_id,
  label: s.label,
  provider: s.provider,
  source: s.source,
  functions: s.functions.map((id) => ({ id })),
  short_description: s.short_description,
  tier: s.tier,
  number_params: s.number_params,
  model_limits: { max_sequence_length: s.max_sequence_length },
  lifecycle: s.lifecycle ?? AVAILABLE_SINCE,
}));

interface DeploymentSeed {
  id: string;
  name: string;
  description: string;
  /** Prompt-template deployments point at their prompt asset. */
  asset?: string;
  baseModel: string;
}

const DEPLOYMENTS: DeploymentSeed[] = [
  { id: 'demo', name: 'demo', description: 'The local engine, deployed', baseModel: LOCAL_DEPLOYMENT_MODEL },
  { id: 'classification', name: 'classification', description: 'A prompt template that classifies questions', asset: 'prompt-template-classification', baseModel: 'ibm/granite-13b-instruct-v2' },
  { id: 'summarize', name: 'summarize', description: 'A prompt template that summarises a {document}', asset: 'prompt-template-summarize', baseModel: 'ibm/granite-13b-instruct-v2' },
];

/** Fixed, so answers are the same every time. */
const CREATED_AT = '2024-05-01T09:00:00.000Z';

/** The deployments of one space or project (every space holds the same three). */
export function deploymentResources(scope: { space_id: string } | { project_id: string }): Record<string, unknown>[] {
  return DEPLOYMENTS.map((d) => ({
    metadata: { id: d.id, name: d.name, description: d.description, created_at: CREATED_AT, modified_at: CREATED_AT, ...scope },
    entity: {
      ...(d.asset !== undefined ? { asset: { id: d.asset } } : {}),
      base_model_id: d.baseModel,
      deployment_type: 'foundation_model',
      online: { parameters: { serving_name: `${d.name.replace(/-/g, '_')}_serving` } },
      status: { state: 'ready' },
    },
  }));
}
