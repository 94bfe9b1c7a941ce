/**
 * The Aleph Alpha tasks — evaluate, explain, qa, summarize — as operations: what a command hands in, what comes
 * back, and the one interface an adapter implements per task. Types only.
 */
import type { ResolvedProfile } from '../profile.js';
import type { HttpRequestSpec } from '../http.js';
import type { MultimodalPrompt, TaskDocument } from './prompts.js';

export interface EvaluateRequest {
  model: string;
  prompt: MultimodalPrompt;
  /** The completion whose likelihood is measured (may be empty). */
  expected: string;
  nice: boolean;
}

export type PromptGranularity = 'token' | 'word' | 'sentence' | 'paragraph' | 'custom';
export type TargetGranularity = 'complete' | 'token';
export type Postprocessing = 'none' | 'absolute' | 'square';

export interface ExplainRequest {
  model: string;
  prompt: MultimodalPrompt;
  target: string;
  /** Unset: the service picks one (about 30 explanations). */
  granularity?: PromptGranularity;
  /** With granularity `custom`. */
  delimiter?: string;
  targetGranularity?: TargetGranularity;
  postprocessing?: Postprocessing;
  normalize?: boolean;
  nice: boolean;
}

export interface QaRequest {
  query: string;
  documents: TaskDocument[];
  maxAnswers?: number;
  nice: boolean;
}

export interface SummarizeRequest {
  document: TaskDocument;
  nice: boolean;
}

/** The service's `result` object of /evaluate, kept as it came (unknown fields included). */
export interface EvaluationMetrics {
  log_probability?: number | null;
  log_perplexity?: number | null;
  log_perplexity_per_token?: number | null;
  log_perplexity_per_character?: number | null;
  correct_greedy?: boolean | null;
  token_count?: number | null;
  character_count?: number | null;
  completion?: string | null;
  [field: string]: unknown;
}

/** `model_id` is the model the request named, as in every canonical result; the rest is the service's. */
export interface EvaluateResult {
  model_id: string;
  model_version?: string;
  result: EvaluationMetrics;
  num_tokens_prompt_total?: number;
}

export interface TextSpanScore {
  start: number;
  length: number;
  score: number;
}

export interface ImageRectScore {
  rect: { top: number; left: number; width: number; height: number };
  score: number;
}

/** One item per prompt item, in order, then the target: the service's `*ItemImportance` objects. */
export type ExplanationItem =
  | { type: 'text'; scores: TextSpanScore[] }
  | { type: 'target'; scores: TextSpanScore[] }
  | { type: 'image'; scores: ImageRectScore[] }
  | { type: 'token_ids'; scores: number[] };

export interface Explanation {
  target: string;
  items: ExplanationItem[];
}

export interface ExplainResult {
  model_id: string;
  model_version?: string;
  explanations: Explanation[];
}

export interface QaAnswer {
  answer: string;
  score: number;
  evidence: string;
}

export interface QaResult {
  model_version?: string;
  answers: QaAnswer[];
}

export interface SummarizeResult {
  model_version?: string;
  summary: string;
}

/** One task on one provider: pure functions over plain objects. */
export interface TaskOperation<Request, Result> {
  /** The request on the wire; throws UsageError for what the provider cannot take. */
  buildRequest(request: Request, profile: ResolvedProfile): HttpRequestSpec;
  /** The provider's JSON answer → the result; throws an Error naming what is missing from a malformed answer. */
  parseResponse(body: unknown, request: Request): Result;
  /**
   * The result for people (`-o text`): lines ending in a newline, or "" when there is nothing to show. `view.heatMap`
   * is given when stdout is a colour terminal: a picture drawn with it may then replace the lines.
   */
  renderText(result: Result, request: Request, view?: TextView): string;
}

/** What the CLI lends `renderText` (an adapter holds no terminal code). */
export interface TextView {
  heatMap?: HeatMapPainter;
}

/** A heat map of scored text spans, drawn by the CLI's output code (src/output/heat-map.ts) in the terminal's colours. */
export interface HeatMapPainter {
  /** One colour scale (the lowest and highest finite score) for several lists of spans. */
  range(spanLists: ReadonlyArray<readonly TextSpanScore[]>): ScoreRange;
  /** `text` with each scored span on its colour. */
  paint(text: string, spans: readonly TextSpanScore[], range: ScoreRange): string;
  /** The scale printed under a heat map: what pale and red stand for. */
  scale(range: ScoreRange): string;
}

export interface ScoreRange {
  min: number;
  max: number;
}

export interface TaskOperations {
  evaluate: TaskOperation<EvaluateRequest, EvaluateResult>;
  explain: TaskOperation<ExplainRequest, ExplainResult>;
  qa: TaskOperation<QaRequest, QaResult>;
  summarize: TaskOperation<SummarizeRequest, SummarizeResult>;
}

export type TaskName = keyof TaskOperations;
