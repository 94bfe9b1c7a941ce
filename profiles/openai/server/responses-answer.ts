/**
 * What a Responses request is answered with: the engine's text, or a function call the engine plans from the tools
 * and `tool_choice`. The stop reason decides the status: cut by the token budget is `incomplete`
 * (`incomplete_details.reason: "max_output_tokens"`), any other end `completed`.
 */
import type { StopReason } from '../../../src/contract/canonical.js';
import type { FunctionCallItem } from './responses-object.js';

/** A function call the answer makes: the whole item, and its arguments cut in the pieces a stream sends. */
export interface PlannedCall {
  item: FunctionCallItem;
  pieces: string[];
}

export function responseStatusOf(stop: StopReason): 'completed' | 'incomplete' {
  return stop === 'max_tokens' || stop === 'token_limit' ? 'incomplete' : 'completed';
}

/** Argument text in pieces of a few characters, as the service streams `function_call_arguments.delta`. */
export function argumentPieces(text: string, size = 8): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces.length > 0 ? pieces : [''];
}
