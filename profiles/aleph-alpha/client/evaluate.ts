/** `evaluate` on Aleph Alpha: `POST /evaluate` — how likely the model is to produce an expected completion. */
import type {
  EvaluateRequest,
  EvaluateResult,
  EvaluationMetrics,
  TaskOperation,
} from '../../../src/contract/adapter.js';
import { isRecord } from './response.js';
import { UnexpectedAnswer } from '../../../src/contract/errors.js';
import { hostingField, modelVersionOf, taskRequest } from './task-request.js';

const LABEL_WIDTH = 19;

function line(label: string, value: string): string {
  return `${label.padEnd(LABEL_WIDTH)}${value}\n`;
}

function num(v: unknown): string {
  return typeof v === 'number' && Number.isFinite(v) ? v.toFixed(4) : 'n/a';
}

function count(v: unknown, noun: string): string | undefined {
  return typeof v === 'number' ? `${v} ${noun}${v === 1 ? '' : 's'}` : undefined;
}

/**
 * Perplexity per token, exp(log_perplexity_per_token): the figure people compare (1 = certain). The service gives
 * only logarithms; the total log perplexity is spread over the tokens when the per-token one is missing.
 */
export function perplexityOf(m: EvaluationMetrics): number | undefined {
  if (typeof m.log_perplexity_per_token === 'number') return Math.exp(m.log_perplexity_per_token);
  if (typeof m.log_perplexity === 'number' && typeof m.token_count === 'number' && m.token_count > 0)
    return Math.exp(m.log_perplexity / m.token_count);
  return undefined;
}

/** Log probability, perplexity and whether greedy decoding gives the expected text (and, when not, what it gives). */
export function renderEvaluation(r: EvaluateResult): string {
  const m = r.result;
  const sizes = [count(m.token_count, 'token'), count(m.character_count, 'character')].filter(
    (s): s is string => s !== undefined,
  );
  const greedy = m.correct_greedy === true ? 'yes' : m.correct_greedy === false ? 'no' : 'n/a';
  let out = line('log probability', `${num(m.log_probability)}${sizes.length > 0 ? `  (${sizes.join(', ')})` : ''}`);
  out += line('perplexity', `${num(perplexityOf(m))}${perplexityOf(m) !== undefined ? '  (per token)' : ''}`);
  out += line('correct greedy', greedy);
  if (m.correct_greedy === false && typeof m.completion === 'string')
    out += line('greedy completion', JSON.stringify(m.completion));
  return out;
}

export const alephAlphaEvaluate: TaskOperation<EvaluateRequest, EvaluateResult> = {
  buildRequest(req, profile) {
    return taskRequest(
      profile,
      'evaluate',
      { model: req.model, ...hostingField(profile), prompt: req.prompt, completion_expected: req.expected },
      req.nice,
    );
  },

  parseResponse(body, req) {
    if (!isRecord(body) || !isRecord(body.result)) throw new UnexpectedAnswer('the answer has no "result" object');
    const out: EvaluateResult = {
      model_id: req.model,
      ...modelVersionOf(body),
      result: body.result as EvaluationMetrics,
    };
    if (typeof body.num_tokens_prompt_total === 'number') out.num_tokens_prompt_total = body.num_tokens_prompt_total;
    return out;
  },

  renderText: renderEvaluation,
};
