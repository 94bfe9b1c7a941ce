/** The completions wire shapes both directions share (docs/protocols/azure-openai.md), and small readers for them. */

export interface WireLogprobs {
  tokens?: string[];
  /** null for the first echoed token: nothing predicts it. */
  token_logprobs?: (number | null)[];
  top_logprobs?: (Record<string, number> | null)[];
  text_offset?: number[];
}

export interface WireChoice {
  text: string;
  index: number;
  logprobs: WireLogprobs | null;
  finish_reason: string | null;
}

export interface WireUsage {
  completion_tokens: number;
  prompt_tokens: number;
  total_tokens: number;
}

export interface WireCompletion {
  id: string;
  object: string;
  created: number;
  model: string;
  choices: WireChoice[];
  usage?: WireUsage;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function stringField(record: Record<string, unknown>, key: string): string | undefined {
  const v = record[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

export function numberField(record: Record<string, unknown>, key: string): number | undefined {
  const v = record[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}
