/**
 * The watsonx.ai catalog `textgen serve` answers from: every foundation model the service lists, the tasks, and the
 * local deployments — data only, each fact with the source it comes from. docs/watsonx.md says how to keep it
 * current. model-catalog.ts turns it into the service's answers.
 *
 * Sources are cited by key. Where no public source gives a value the service needs in its answer (a billing tier, a
 * parameter count), the key is `assumed` and the value is there for the answer's shape only.
 */

export interface CatalogSource {
  /** Where to look. */
  url: string;
  /** The day the source says what it says (a post's date, a listing's day). */
  seen: string;
  says: string;
}

export const SOURCES = {
  'listing-2025-10-13': {
    url: 'https://github.com/mozilla-ai/any-llm/issues/539',
    seen: '2025-10-13',
    says: "ibm_watsonx_ai's error quoting the model ids the us-south service listed (GET /ml/v1/foundation_model_specs): every id below",
  },
  'listing-2025-10-08': {
    url: 'https://github.com/IBM/AssetOpsBench/issues/78',
    seen: '2025-10-08',
    says: 'the same error, listing the generation and chat models of an environment (granite-4-h-small included)',
  },
  'node-sdk-tests': {
    url: 'https://github.com/IBM/watsonx-ai-node-sdk/blob/main/test/integration/config.ts',
    seen: '2025-10-01',
    says: "the ids IBM's Node SDK tests against: ibm/granite-3-8b-instruct, ibm/slate-125m-english-rtrvr-v2, meta-llama/llama-3-3-70b-instruct, mistralai/mistral-small-3-1-24b-instruct-2503, openai/gpt-oss-120b, ibm/granite-ttm-512-96-r2; its inference test sends parameters.chat {history: [{is_question, content}], context}",
  },
  'ibm-embedding-models': {
    url: 'https://www.ibm.com/docs/en/cloud-paks/cp-data/5.0.x?topic=models-supported-embedding',
    seen: '2024-07-25',
    says: 'maximum input tokens and dimensions: slate-125m-english-rtrvr 512/768, slate-30m-english-rtrvr 512/384, all-minilm-l6-v2 256/384, multilingual-e5-large 512/1024',
  },
  'ibm-rag-cookbook': {
    url: 'https://www.ibm.com/architectures/papers/rag-cookbook/embedding',
    seen: '2025-01-01',
    says: 'the slate embedding models are billed in class C1',
  },
  'ibm-choosing-a-model': {
    url: 'https://www.ibm.com/docs/en/watsonxdata/premium/2.4.x?topic=models-choosing-model',
    seen: '2025-10-01',
    says: 'granite-4-h-small, granite-3-3-8b-instruct, granite-3-8b-instruct, granite-3-2b-instruct: Chat API, RAG; granite-13b-instruct-v2: generation',
  },
  'promptfoo-watsonx-models': {
    url: 'https://github.com/promptfoo/promptfoo/pull/5838',
    seen: '2025-10-07',
    says: "the text models of the live API answer (the PR and its site/docs/providers/watsonx.md), the deprecated ones marked: granite-13b-instruct-v2, granite-3-8b-instruct, granite-3-2b-instruct, granite-vision-3-2-2b ('use 3-3-8b')",
  },
  'model-card': {
    url: 'https://huggingface.co/',
    seen: '2025-10-01',
    says: "the model's own card (the `card` URL of each model): parameter count, context length, embedding size",
  },
  'previous-catalog': {
    url: 'git log -- profiles/watsonx/server/model-catalog.ts',
    seen: '2024-05-01',
    says: "this repository's 2024 catalog, for the older models it had and the service still lists",
  },
  'model-kind': {
    url: 'docs/watsonx.md#the-model-catalog',
    seen: '2025-10-13',
    says: "functions read from what the model is (base or instruct, vision, embedding, reranker, time series) where IBM's pages give none",
  },
  assumed: {
    url: 'docs/watsonx.md#the-model-catalog',
    seen: '2025-10-13',
    says: 'no public source: a value of the right shape, so the answer has every field the SDK types require',
  },
} as const satisfies Record<string, CatalogSource>;

export type SourceKey = keyof typeof SOURCES;

/** What the service says a model can do (`functions[].id`) and the route each one opens. */
export type ModelFunction =
  | 'text_generation'
  | 'text_chat'
  | 'image_chat'
  | 'embedding'
  | 'rerank'
  | 'time_series_forecast';

/** A lifecycle phase; `since` is the day of the source that shows it, not IBM's announcement (none gives one). */
export interface Phase {
  id: 'available' | 'deprecated' | 'constricted' | 'withdrawn';
  since: string;
  alternatives?: string[];
}

export interface ModelFacts {
  id: string;
  label: string;
  provider: string;
  /** Where the weights come from, as the service says it ("IBM", "Hugging Face"). */
  source: string;
  description: string;
  params: string;
  functions: ModelFunction[];
  tasks?: TaskId[];
  /** Input plus output tokens (`model_limits.max_sequence_length`); for an embedding model its input limit. */
  contextTokens: number;
  /** Embedding models: the length of each vector. */
  dimensions?: number;
  /** `input_tier` and `output_tier`: the billing class. */
  tier: string;
  lifecycle: Phase[];
  /** The model's public card. */
  card?: string;
  from: {
    listed: SourceKey[];
    limits: SourceKey[];
    functions: SourceKey[];
    lifecycle: SourceKey[];
    tier: SourceKey[];
    params: SourceKey[];
  };
}

const LISTED_GEN: SourceKey[] = ['listing-2025-10-08', 'listing-2025-10-13'];
const LISTED: SourceKey[] = ['listing-2025-10-13'];
const GEN_SINCE = '2025-10-08';
const SINCE = '2025-10-13';
const DEPRECATED_SINCE = '2025-10-07';
const CURRENT_GRANITE = 'ibm/granite-3-3-8b-instruct';
const GENERAL_TASKS: TaskId[] = [
  'question_answering',
  'summarization',
  'retrieval_augmented_generation',
  'classification',
  'generation',
  'extraction',
];
const CHAT: ModelFunction[] = ['text_generation', 'text_chat'];
const VISION: ModelFunction[] = ['text_chat', 'image_chat'];

const available = (since: string): Phase[] => [{ id: 'available', since }];
/** `availableSince`: the previous catalog's day for the models it had, else the day of the deprecation's source. */
const deprecated = (alternative: string | undefined, availableSince = DEPRECATED_SINCE): Phase[] => [
  { id: 'available', since: availableSince },
  { id: 'deprecated', since: DEPRECATED_SINCE, ...(alternative !== undefined ? { alternatives: [alternative] } : {}) },
];

/** Sorted by id, as the service sorts its listing. */
export const MODELS: readonly ModelFacts[] = [
  {
    id: 'cross-encoder/ms-marco-minilm-l-12-v2',
    label: 'ms-marco-minilm-l-12-v2',
    provider: 'Microsoft',
    source: 'Hugging Face',
    description: 'A cross-encoder that scores how well a passage answers a query, for reranking.',
    params: '33m',
    functions: ['rerank'],
    contextTokens: 512,
    tier: 'class_c1',
    lifecycle: available(SINCE),
    card: 'https://huggingface.co/cross-encoder/ms-marco-MiniLM-L-12-v2',
    from: {
      listed: LISTED,
      limits: ['model-card'],
      functions: ['model-kind'],
      lifecycle: LISTED,
      tier: ['assumed'],
      params: ['model-card'],
    },
  },
  {
    id: 'google/flan-t5-xl',
    label: 'flan-t5-xl-3b',
    provider: 'Google',
    source: 'Hugging Face',
    description: 'A pretrained T5 fine-tuned on a mixture of tasks, for zero- and few-shot prompts.',
    params: '3b',
    functions: ['text_generation'],
    tasks: GENERAL_TASKS,
    contextTokens: 4096,
    tier: 'class_1',
    lifecycle: available('2024-05-01'),
    card: 'https://huggingface.co/google/flan-t5-xl',
    from: {
      listed: LISTED,
      limits: ['previous-catalog'],
      functions: ['model-kind'],
      lifecycle: ['previous-catalog', ...LISTED],
      tier: ['previous-catalog'],
      params: ['model-card'],
    },
  },
  {
    id: 'ibm/granite-13b-instruct-v2',
    label: 'granite-13b-instruct-v2',
    provider: 'IBM',
    source: 'IBM',
    description: 'The Granite model for summarisation, extraction, classification and generation.',
    params: '13b',
    functions: ['text_generation'],
    tasks: GENERAL_TASKS,
    contextTokens: 8192,
    tier: 'class_1',
    lifecycle: deprecated(CURRENT_GRANITE, '2024-05-01'),
    from: {
      listed: LISTED_GEN,
      limits: ['previous-catalog'],
      functions: ['ibm-choosing-a-model'],
      lifecycle: ['previous-catalog', 'promptfoo-watsonx-models'],
      tier: ['previous-catalog'],
      params: ['previous-catalog'],
    },
  },
  {
    id: 'ibm/granite-3-1-8b-base',
    label: 'granite-3-1-8b-base',
    provider: 'IBM',
    source: 'IBM',
    description: 'The Granite 3.1 base model, for continuation and fine-tuning.',
    params: '8b',
    functions: ['text_generation'],
    tasks: ['generation'],
    contextTokens: 131072,
    tier: 'class_1',
    lifecycle: available(SINCE),
    card: 'https://huggingface.co/ibm-granite/granite-3.1-8b-base',
    from: {
      listed: LISTED,
      limits: ['model-card'],
      functions: ['model-kind'],
      lifecycle: LISTED,
      tier: ['assumed'],
      params: ['model-card'],
    },
  },
  {
    id: 'ibm/granite-3-2-8b-instruct',
    label: 'granite-3-2-8b-instruct',
    provider: 'IBM',
    source: 'IBM',
    description: 'A Granite 3.2 instruct model that can reason before it answers.',
    params: '8b',
    functions: CHAT,
    tasks: GENERAL_TASKS,
    contextTokens: 131072,
    tier: 'class_1',
    lifecycle: available(GEN_SINCE),
    card: 'https://huggingface.co/ibm-granite/granite-3.2-8b-instruct',
    from: {
      listed: LISTED_GEN,
      limits: ['model-card'],
      functions: ['model-kind'],
      lifecycle: LISTED_GEN,
      tier: ['assumed'],
      params: ['model-card'],
    },
  },
  {
    id: 'ibm/granite-3-2b-instruct',
    label: 'granite-3-2b-instruct',
    provider: 'IBM',
    source: 'IBM',
    description: 'A small Granite 3 model tuned to follow instructions.',
    params: '2b',
    functions: CHAT,
    tasks: [...GENERAL_TASKS, 'code'],
    contextTokens: 131072,
    tier: 'class_1',
    lifecycle: deprecated(CURRENT_GRANITE),
    card: 'https://huggingface.co/ibm-granite/granite-3.0-2b-instruct',
    from: {
      listed: LISTED_GEN,
      limits: ['model-card'],
      functions: ['ibm-choosing-a-model'],
      lifecycle: ['promptfoo-watsonx-models'],
      tier: ['assumed'],
      params: ['model-card'],
    },
  },
  {
    id: 'ibm/granite-3-3-8b-instruct',
    label: 'granite-3-3-8b-instruct',
    provider: 'IBM',
    source: 'IBM',
    description: 'The Granite 3.3 instruct model: chat, RAG, reasoning and fill-in-the-middle code.',
    params: '8b',
    functions: CHAT,
    tasks: GENERAL_TASKS,
    contextTokens: 131072,
    tier: 'class_1',
    lifecycle: available(GEN_SINCE),
    card: 'https://huggingface.co/ibm-granite/granite-3.3-8b-instruct',
    from: {
      listed: LISTED_GEN,
      limits: ['model-card'],
      functions: ['ibm-choosing-a-model'],
      lifecycle: LISTED_GEN,
      tier: ['assumed'],
      params: ['model-card'],
    },
  },
  {
    id: 'ibm/granite-3-8b-instruct',
    label: 'granite-3-8b-instruct',
    provider: 'IBM',
    source: 'IBM',
    description: 'An open Granite 3 model tuned to follow instructions.',
    params: '8b',
    functions: CHAT,
    tasks: [...GENERAL_TASKS, 'code'],
    contextTokens: 131072,
    tier: 'class_12',
    lifecycle: deprecated(CURRENT_GRANITE, '2024-05-01'),
    card: 'https://huggingface.co/ibm-granite/granite-3.0-8b-instruct',
    from: {
      listed: [...LISTED_GEN, 'node-sdk-tests'],
      limits: ['model-card'],
      functions: ['ibm-choosing-a-model'],
      lifecycle: ['previous-catalog', 'promptfoo-watsonx-models'],
      tier: ['previous-catalog'],
      params: ['model-card'],
    },
  },
  {
    id: 'ibm/granite-4-h-small',
    label: 'granite-4-h-small',
    provider: 'IBM',
    source: 'IBM',
    description:
      'The Granite 4.0 hybrid Mamba/transformer mixture of experts (32B total, 9B active) for chat, tools and RAG.',
    params: '32b',
    functions: CHAT,
    tasks: GENERAL_TASKS,
    contextTokens: 131072,
    tier: 'class_1',
    lifecycle: available(GEN_SINCE),
    card: 'https://huggingface.co/ibm-granite/granite-4.0-h-small',
    from: {
      listed: LISTED_GEN,
      limits: ['model-card'],
      functions: ['ibm-choosing-a-model'],
      lifecycle: LISTED_GEN,
      tier: ['assumed'],
      params: ['model-card'],
    },
  },
  {
    id: 'ibm/granite-8b-code-instruct',
    label: 'granite-8b-code-instruct',
    provider: 'IBM',
    source: 'IBM',
    description: 'A Granite code model tuned to follow instructions about code.',
    params: '8b',
    functions: CHAT,
    tasks: ['code'],
    contextTokens: 131072,
    tier: 'class_1',
    lifecycle: available(GEN_SINCE),
    card: 'https://huggingface.co/ibm-granite/granite-8b-code-instruct-128k',
    from: {
      listed: LISTED_GEN,
      limits: ['model-card'],
      functions: ['model-kind'],
      lifecycle: LISTED_GEN,
      tier: ['assumed'],
      params: ['model-card'],
    },
  },
  {
    id: 'ibm/granite-embedding-107m-multilingual',
    label: 'granite-embedding-107m-multilingual',
    provider: 'IBM',
    source: 'IBM',
    description: 'A multilingual Granite embedding model for retrieval (12 languages).',
    params: '107m',
    functions: ['embedding'],
    contextTokens: 512,
    dimensions: 384,
    tier: 'class_c1',
    lifecycle: available(SINCE),
    card: 'https://huggingface.co/ibm-granite/granite-embedding-107m-multilingual',
    from: {
      listed: LISTED,
      limits: ['model-card'],
      functions: ['model-kind'],
      lifecycle: LISTED,
      tier: ['ibm-rag-cookbook'],
      params: ['model-card'],
    },
  },
  {
    id: 'ibm/granite-embedding-278m-multilingual',
    label: 'granite-embedding-278m-multilingual',
    provider: 'IBM',
    source: 'IBM',
    description: 'The larger multilingual Granite embedding model for retrieval (12 languages).',
    params: '278m',
    functions: ['embedding'],
    contextTokens: 512,
    dimensions: 768,
    tier: 'class_c1',
    lifecycle: available(SINCE),
    card: 'https://huggingface.co/ibm-granite/granite-embedding-278m-multilingual',
    from: {
      listed: LISTED,
      limits: ['model-card'],
      functions: ['model-kind'],
      lifecycle: LISTED,
      tier: ['ibm-rag-cookbook'],
      params: ['model-card'],
    },
  },
  {
    id: 'ibm/granite-guardian-3-8b',
    label: 'granite-guardian-3-8b',
    provider: 'IBM',
    source: 'IBM',
    description:
      'A Granite model that detects risks (harm, bias, jailbreaks, ungrounded answers) in prompts and responses.',
    params: '8b',
    functions: CHAT,
    tasks: ['classification'],
    contextTokens: 131072,
    tier: 'class_1',
    lifecycle: available(GEN_SINCE),
    card: 'https://huggingface.co/ibm-granite/granite-guardian-3.0-8b',
    from: {
      listed: LISTED_GEN,
      limits: ['model-card'],
      functions: ['model-kind'],
      lifecycle: LISTED_GEN,
      tier: ['assumed'],
      params: ['model-card'],
    },
  },
  ...[512, 1024, 1536].map(
    (context): ModelFacts => ({
      id: `ibm/granite-ttm-${context}-96-r2`,
      label: `granite-ttm-${context}-96-r2`,
      provider: 'IBM',
      source: 'IBM',
      description: `A TinyTimeMixer that forecasts 96 steps from ${context} observations.`,
      params: '1m',
      functions: ['time_series_forecast'],
      contextTokens: context,
      tier: 'class_1',
      lifecycle: available(SINCE),
      card: 'https://huggingface.co/ibm-granite/granite-timeseries-ttm-r2',
      from: {
        listed: context === 512 ? [...LISTED, 'node-sdk-tests'] : LISTED,
        limits: ['model-card'],
        functions: ['model-kind'],
        lifecycle: LISTED,
        tier: ['assumed'],
        params: ['assumed'],
      },
    }),
  ),
  {
    id: 'ibm/granite-vision-3-2-2b',
    label: 'granite-vision-3-2-2b',
    provider: 'IBM',
    source: 'IBM',
    description: 'A small Granite vision-language model for documents, charts and tables.',
    params: '2b',
    functions: VISION,
    contextTokens: 131072,
    tier: 'class_1',
    lifecycle: deprecated(undefined),
    card: 'https://huggingface.co/ibm-granite/granite-vision-3.2-2b',
    from: {
      listed: LISTED_GEN,
      limits: ['model-card'],
      functions: ['model-kind'],
      lifecycle: ['promptfoo-watsonx-models'],
      tier: ['assumed'],
      params: ['model-card'],
    },
  },
  ...(['', '-v2'] as const).flatMap((v): ModelFacts[] => [
    {
      id: `ibm/slate-125m-english-rtrvr${v}`,
      label: `slate-125m-english-rtrvr${v}`,
      provider: 'IBM',
      source: 'IBM',
      description: 'A retrieval embedding model for English text.',
      params: '125m',
      functions: ['embedding'],
      contextTokens: 512,
      dimensions: 768,
      tier: 'class_c1',
      lifecycle: available(v === '' ? '2024-05-01' : SINCE),
      from: {
        listed: v === '' ? LISTED : [...LISTED, 'node-sdk-tests'],
        limits: ['ibm-embedding-models'],
        functions: ['ibm-embedding-models'],
        lifecycle: LISTED,
        tier: ['ibm-rag-cookbook'],
        params: ['ibm-embedding-models'],
      },
    },
    {
      id: `ibm/slate-30m-english-rtrvr${v}`,
      label: `slate-30m-english-rtrvr${v}`,
      provider: 'IBM',
      source: 'IBM',
      description: 'A smaller, faster retrieval embedding model for English text.',
      params: '30m',
      functions: ['embedding'],
      contextTokens: 512,
      dimensions: 384,
      tier: 'class_c1',
      lifecycle: available(v === '' ? '2024-05-01' : SINCE),
      from: {
        listed: LISTED,
        limits: ['ibm-embedding-models'],
        functions: ['ibm-embedding-models'],
        lifecycle: LISTED,
        tier: ['ibm-rag-cookbook'],
        params: ['ibm-embedding-models'],
      },
    },
  ]),
  {
    id: 'intfloat/multilingual-e5-large',
    label: 'multilingual-e5-large',
    provider: 'Microsoft',
    source: 'Hugging Face',
    description: 'A multilingual embedding model; prefix texts with "query: " or "passage: ".',
    params: '560m',
    functions: ['embedding'],
    contextTokens: 512,
    dimensions: 1024,
    tier: 'class_c1',
    lifecycle: available(SINCE),
    card: 'https://huggingface.co/intfloat/multilingual-e5-large',
    from: {
      listed: LISTED,
      limits: ['ibm-embedding-models'],
      functions: ['ibm-embedding-models'],
      lifecycle: LISTED,
      tier: ['assumed'],
      params: ['model-card'],
    },
  },
  {
    id: 'meta-llama/llama-2-13b-chat',
    label: 'llama-2-13b-chat',
    provider: 'Meta',
    source: 'Hugging Face',
    description: 'Llama 2 with 13 billion parameters, tuned for dialogue.',
    params: '13b',
    functions: ['text_generation'],
    tasks: GENERAL_TASKS,
    contextTokens: 4096,
    tier: 'class_1',
    lifecycle: available(GEN_SINCE),
    card: 'https://huggingface.co/meta-llama/Llama-2-13b-chat-hf',
    from: {
      listed: LISTED_GEN,
      limits: ['model-card'],
      functions: ['model-kind'],
      lifecycle: LISTED_GEN,
      tier: ['assumed'],
      params: ['model-card'],
    },
  },
  {
    id: 'meta-llama/llama-3-1-70b-gptq',
    label: 'llama-3-1-70b-gptq',
    provider: 'Meta',
    source: 'Hugging Face',
    description: 'Llama 3.1 with 70 billion parameters, quantised with GPTQ.',
    params: '70b',
    functions: ['text_generation'],
    tasks: GENERAL_TASKS,
    contextTokens: 131072,
    tier: 'class_1',
    lifecycle: available(SINCE),
    card: 'https://huggingface.co/meta-llama/Llama-3.1-70B',
    from: {
      listed: LISTED,
      limits: ['model-card'],
      functions: ['model-kind'],
      lifecycle: LISTED,
      tier: ['assumed'],
      params: ['model-card'],
    },
  },
  {
    id: 'meta-llama/llama-3-1-8b',
    label: 'llama-3-1-8b',
    provider: 'Meta',
    source: 'Hugging Face',
    description: 'The Llama 3.1 base model with 8 billion parameters.',
    params: '8b',
    functions: ['text_generation'],
    tasks: ['generation'],
    contextTokens: 131072,
    tier: 'class_1',
    lifecycle: available(SINCE),
    card: 'https://huggingface.co/meta-llama/Llama-3.1-8B',
    from: {
      listed: LISTED,
      limits: ['model-card'],
      functions: ['model-kind'],
      lifecycle: LISTED,
      tier: ['assumed'],
      params: ['model-card'],
    },
  },
  ...(
    [
      ['11b', 'llama-3-2-11b-vision-instruct'],
      ['90b', 'llama-3-2-90b-vision-instruct'],
    ] as const
  ).map(
    ([params, name]): ModelFacts => ({
      id: `meta-llama/${name}`,
      label: name,
      provider: 'Meta',
      source: 'Hugging Face',
      description: `Llama 3.2 Vision with ${params.slice(0, -1)} billion parameters: questions about images and text.`,
      params,
      functions: VISION,
      contextTokens: 131072,
      tier: 'class_1',
      lifecycle: available(GEN_SINCE),
      card: `https://huggingface.co/meta-llama/Llama-3.2-${params.toUpperCase()}-Vision-Instruct`,
      from: {
        listed: LISTED_GEN,
        limits: ['model-card'],
        functions: ['model-kind'],
        lifecycle: LISTED_GEN,
        tier: ['assumed'],
        params: ['model-card'],
      },
    }),
  ),
  {
    id: 'meta-llama/llama-3-3-70b-instruct',
    label: 'llama-3-3-70b-instruct',
    provider: 'Meta',
    source: 'Hugging Face',
    description: 'Llama 3.3 with 70 billion parameters, tuned for dialogue and instructions.',
    params: '70b',
    functions: CHAT,
    tasks: [...GENERAL_TASKS, 'code', 'translation'],
    contextTokens: 131072,
    tier: 'class_1',
    lifecycle: available(GEN_SINCE),
    card: 'https://huggingface.co/meta-llama/Llama-3.3-70B-Instruct',
    from: {
      listed: [...LISTED_GEN, 'node-sdk-tests'],
      limits: ['model-card'],
      functions: ['model-kind'],
      lifecycle: LISTED_GEN,
      tier: ['assumed'],
      params: ['model-card'],
    },
  },
  {
    id: 'meta-llama/llama-3-405b-instruct',
    label: 'llama-3-405b-instruct',
    provider: 'Meta',
    source: 'Hugging Face',
    description: 'Llama 3.1 with 405 billion parameters, tuned for dialogue and instructions.',
    params: '405b',
    functions: CHAT,
    tasks: [...GENERAL_TASKS, 'code', 'translation'],
    contextTokens: 131072,
    tier: 'class_1',
    lifecycle: available(GEN_SINCE),
    card: 'https://huggingface.co/meta-llama/Llama-3.1-405B-Instruct',
    from: {
      listed: LISTED_GEN,
      limits: ['model-card'],
      functions: ['model-kind'],
      lifecycle: LISTED_GEN,
      tier: ['assumed'],
      params: ['model-card'],
    },
  },
  {
    id: 'meta-llama/llama-4-maverick-17b-128e-instruct-fp8',
    label: 'llama-4-maverick-17b-128e-instruct-fp8',
    provider: 'Meta',
    source: 'Hugging Face',
    description: 'Llama 4 Maverick: a mixture of 128 experts (17B active), natively multimodal.',
    params: '400b',
    functions: [...CHAT, 'image_chat'],
    tasks: [...GENERAL_TASKS, 'code', 'translation'],
    contextTokens: 1048576,
    tier: 'class_1',
    lifecycle: available(GEN_SINCE),
    card: 'https://huggingface.co/meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8',
    from: {
      listed: LISTED_GEN,
      limits: ['model-card'],
      functions: ['model-card'],
      lifecycle: LISTED_GEN,
      tier: ['assumed'],
      params: ['model-card'],
    },
  },
  {
    id: 'meta-llama/llama-guard-3-11b-vision',
    label: 'llama-guard-3-11b-vision',
    provider: 'Meta',
    source: 'Hugging Face',
    description: 'Llama Guard 3 Vision: classifies whether text-and-image prompts and responses are safe.',
    params: '11b',
    functions: VISION,
    tasks: ['classification'],
    contextTokens: 131072,
    tier: 'class_1',
    lifecycle: available(GEN_SINCE),
    card: 'https://huggingface.co/meta-llama/Llama-Guard-3-11B-Vision',
    from: {
      listed: LISTED_GEN,
      limits: ['model-card'],
      functions: ['model-kind'],
      lifecycle: LISTED_GEN,
      tier: ['assumed'],
      params: ['model-card'],
    },
  },
  {
    id: 'mistralai/mistral-medium-2505',
    label: 'mistral-medium-2505',
    provider: 'Mistral AI',
    source: 'Mistral AI',
    description: 'Mistral Medium 3 (May 2025): a multimodal model for coding, chat and documents.',
    params: 'n/a',
    functions: [...CHAT, 'image_chat'],
    tasks: [...GENERAL_TASKS, 'code', 'translation'],
    contextTokens: 131072,
    tier: 'class_1',
    lifecycle: available(GEN_SINCE),
    card: 'https://mistral.ai/news/mistral-medium-3',
    from: {
      listed: LISTED_GEN,
      limits: ['model-card'],
      functions: ['model-card'],
      lifecycle: LISTED_GEN,
      tier: ['assumed'],
      params: ['assumed'],
    },
  },
  {
    id: 'mistralai/mistral-small-3-1-24b-instruct-2503',
    label: 'mistral-small-3-1-24b-instruct-2503',
    provider: 'Mistral AI',
    source: 'Hugging Face',
    description: 'Mistral Small 3.1 (March 2025): 24B parameters, text and images.',
    params: '24b',
    functions: [...CHAT, 'image_chat'],
    tasks: [...GENERAL_TASKS, 'code', 'translation'],
    contextTokens: 131072,
    tier: 'class_1',
    lifecycle: available(GEN_SINCE),
    card: 'https://huggingface.co/mistralai/Mistral-Small-3.1-24B-Instruct-2503',
    from: {
      listed: [...LISTED_GEN, 'node-sdk-tests'],
      limits: ['model-card'],
      functions: ['model-card'],
      lifecycle: LISTED_GEN,
      tier: ['assumed'],
      params: ['model-card'],
    },
  },
  {
    id: 'openai/gpt-oss-120b',
    label: 'gpt-oss-120b',
    provider: 'OpenAI',
    source: 'Hugging Face',
    description: "OpenAI's open-weight reasoning model (117B parameters, 5.1B active).",
    params: '120b',
    functions: CHAT,
    tasks: [...GENERAL_TASKS, 'code'],
    contextTokens: 131072,
    tier: 'class_1',
    lifecycle: available(GEN_SINCE),
    card: 'https://huggingface.co/openai/gpt-oss-120b',
    from: {
      listed: [...LISTED_GEN, 'node-sdk-tests'],
      limits: ['model-card'],
      functions: ['model-kind'],
      lifecycle: LISTED_GEN,
      tier: ['assumed'],
      params: ['model-card'],
    },
  },
  {
    id: 'sentence-transformers/all-minilm-l6-v2',
    label: 'all-minilm-l6-v2',
    provider: 'sentence-transformers',
    source: 'Hugging Face',
    description: 'A small sentence embedding model for English.',
    params: '22m',
    functions: ['embedding'],
    contextTokens: 256,
    dimensions: 384,
    tier: 'class_c1',
    lifecycle: available(SINCE),
    card: 'https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2',
    from: {
      listed: LISTED,
      limits: ['ibm-embedding-models'],
      functions: ['ibm-embedding-models'],
      lifecycle: LISTED,
      tier: ['assumed'],
      params: ['model-card'],
    },
  },
];

/** The tasks of `GET /ml/v1/foundation_model_tasks`, in rank order; labels as the service words them. */
export const TASKS = [
  {
    task_id: 'question_answering',
    label: 'Question answering',
    description: 'Answer questions grounded in a set of documents or a knowledge base.',
  },
  {
    task_id: 'summarization',
    label: 'Summarization',
    description: 'Turn long text into a short summary that keeps the key points.',
  },
  {
    task_id: 'retrieval_augmented_generation',
    label: 'Retrieval Augmented Generation',
    description: 'Answer from passages retrieved for the question, citing them.',
  },
  {
    task_id: 'classification',
    label: 'Classification',
    description: 'Sort text into classes, such as sentiment, intent or topic.',
  },
  { task_id: 'generation', label: 'Generation', description: 'Write new text: copy, stories, emails, descriptions.' },
  {
    task_id: 'code',
    label: 'Code generation and conversion',
    description: 'Write, explain, complete or translate source code.',
  },
  {
    task_id: 'extraction',
    label: 'Extraction',
    description: 'Pull entities, facts and values out of unstructured text.',
  },
  { task_id: 'translation', label: 'Translation', description: 'Translate text from one natural language to another.' },
] as const;

export type TaskId = (typeof TASKS)[number]['task_id'];

/** The deployments of every local space and project. */
export interface DeploymentFacts {
  id: string;
  name: string;
  /** Its other name in inference URLs (`/ml/v1/deployments/{id_or_name}/…`). */
  servingName: string;
  description: string;
  /** A prompt-template deployment points at its prompt template. */
  promptTemplate?: string;
  /**
   * The template's text, `{name}` placeholders filled from `prompt_variables`: what the service generates from when
   * the request has no `input` (IBM: input is ignored when the deployment has a prompt template).
   */
  templateText?: string;
  baseModel: string;
  assetType: 'foundation_model' | 'custom_foundation_model';
  /** A prompt template's `input_mode`: `chat` for the deployments `/text/chat` takes, else `freeform`. */
  inputMode?: 'chat' | 'freeform';
  /** A chat template's `system_prompt`, put before the conversation as the system message. */
  systemPrompt?: string;
  /** The deployment's tags (`tag.value` filters by them). */
  tags?: readonly string[];
}

/** The model the engine serves under the `demo` deployment: it is not one of IBM's. */
export const LOCAL_DEPLOYMENT_MODEL = 'textgen/local-demo';

export const DEPLOYMENTS: readonly DeploymentFacts[] = [
  {
    id: 'demo',
    name: 'demo',
    servingName: 'demo_serving',
    description: 'The local engine, deployed',
    baseModel: LOCAL_DEPLOYMENT_MODEL,
    assetType: 'custom_foundation_model',
  },
  {
    id: 'classification',
    name: 'classification',
    servingName: 'classification_serving',
    description: 'A prompt template that classifies questions',
    promptTemplate: 'prompt-template-classification',
    templateText: 'Classify this question: {question}',
    baseModel: 'ibm/granite-3-3-8b-instruct',
    assetType: 'foundation_model',
  },
  {
    id: 'summarize',
    name: 'summarize',
    servingName: 'summarize_serving',
    description: 'A prompt template that summarises a {document}',
    promptTemplate: 'prompt-template-summarize',
    templateText: 'Summarise: {document}',
    baseModel: 'ibm/granite-3-3-8b-instruct',
    assetType: 'foundation_model',
    tags: ['summaries'],
  },
  {
    id: 'assistant',
    name: 'assistant',
    servingName: 'assistant_serving',
    description: 'A chat prompt template: a cautious assistant',
    promptTemplate: 'prompt-template-assistant',
    inputMode: 'chat',
    systemPrompt: 'You are a cautious assistant. You carefully follow instructions.',
    baseModel: 'ibm/granite-3-3-8b-instruct',
    assetType: 'foundation_model',
    tags: ['chat'],
  },
];
