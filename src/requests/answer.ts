/**
 * Reading a 2xx answer: the body as JSON, then the adapter's parse. Whatever is not the protocol's shape becomes one
 * UnexpectedAnswer that names the provider, the status, what was wrong and the start of what came.
 */
import { answerNumberProblem } from '../answer-numbers.js';
import { inAnswer, UnexpectedAnswer, type AnswerContext } from '../errors.js';

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
