/**
 * Reading a 2xx answer: the body as JSON, then the adapter's parse. Whatever is not the protocol's shape becomes one
 * UnexpectedAnswer that names the provider, the status, what was wrong and the start of what came (the profile's
 * secrets masked). Also the one wording of a stream that broke off.
 */
import { answerNumberProblem } from '../contract/answer-numbers.js';
import { inAnswer, StreamError, UnexpectedAnswer, type AnswerContext } from '../contract/errors.js';
import type { HttpResponse } from '../contract/http.js';

/** The body as JSON; an empty body is `null` when `emptyIsNull` (listings), else not JSON. */
export function answerJson(text: string, context: AnswerContext, options: { emptyIsNull?: boolean } = {}): unknown {
  if (options.emptyIsNull && text.trim() === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    throw new UnexpectedAnswer('not JSON', { ...context, body: text });
  }
}

/** `parse()`, with an UnexpectedAnswer from the adapter completed by who sent the answer and what it said. */
export function readAnswer<T>(parse: () => T, context: AnswerContext): T {
  let result: T;
  try {
    result = parse();
  } catch (e) {
    throw inAnswer(e, context);
  }
  // Every provider's answer passes here on its way to the canonical result: one check of its numbers for all.
  const problem = answerNumberProblem(result);
  if (problem !== undefined) throw new UnexpectedAnswer(problem, context);
  return result;
}

/** Who answered what: the one way an AnswerContext is made, so the profile's secrets are never left out. */
export function answerContext(
  provider: string,
  status: number,
  body: string | undefined,
  secrets: readonly string[],
): AnswerContext {
  return { provider, status, ...(body !== undefined ? { body } : {}), secrets };
}

/** "<kind> stream broke off: …" (exit 6): the one wording of a stream that ended early. */
export function brokeOff(
  kind: string,
  why: string,
  options?: ConstructorParameters<typeof StreamError>[1],
): StreamError {
  return new StreamError(`${kind} stream broke off: ${why}`, options);
}

/** A whole 2xx answer, read and parsed by the adapter. */
export interface WholeAnswer<Result> {
  result: Result;
  /** The body as it came and as JSON (for --raw). */
  text: string;
  json: unknown;
}

/** Reads a whole 2xx answer: its text, its JSON, the adapter's parse; UnexpectedAnswer with the context otherwise. */
export async function readWhole<Result>(
  res: HttpResponse,
  who: { kind: string; secrets: readonly string[] },
  parse: (json: unknown) => Result,
): Promise<WholeAnswer<Result>> {
  const text = await res.text();
  const context = answerContext(who.kind, res.status, text, who.secrets);
  const json = answerJson(text, context);
  return { result: readAnswer(() => parse(json), context), text, json };
}
