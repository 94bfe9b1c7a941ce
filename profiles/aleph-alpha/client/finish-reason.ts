/**
 * AA `finish_reason` → watsonx stop reasons, and `include_stop_sequence`, which 1.16 does not have.
 *
 * Values seen: `maximum_tokens`, `end_of_text`, and `stop_sequence_reached` for a stop sequence (the 1.16 document
 * only says the reason "may be a stop sequence", so the sequence itself is recognised too). AA leaves the stop
 * sequence out of the completion. With `include_stop_sequence: true` the profile appends the one that ended the
 * text when it can tell which (finish_reason names it, or only one was requested); with `false` it cuts one off
 * when a server did include it. Without the parameter the text stays as the service sent it.
 */
import type { CanonicalRequest, ServiceWarning, StopReason } from '../../../src/contract/canonical.js';

export function requestedStops(request: CanonicalRequest | undefined): string[] {
  return (request?.parameters?.stop_sequences ?? []).filter((s) => s.length > 0);
}

/** The longest requested stop sequence the text ends with. */
function stopAtEnd(text: string, stops: readonly string[]): string | undefined {
  let best: string | undefined;
  for (const s of stops) if (text.endsWith(s) && (best === undefined || s.length > best.length)) best = s;
  return best;
}

export function canonicalStopReason(finishReason: unknown, text: string, stops: readonly string[]): StopReason {
  if (typeof finishReason !== 'string' || finishReason === '') return 'not_finished';
  switch (finishReason) {
    case 'maximum_tokens':
    case 'max_tokens':
    case 'length':
      return 'max_tokens';
    case 'end_of_text':
    case 'eos_token':
      return 'eos_token';
    case 'stop_sequence_reached':
    case 'stop_sequence':
      return 'stop_sequence';
    case 'stop':
      return stopAtEnd(text, stops) !== undefined ? 'stop_sequence' : 'eos_token';
  }
  if (stops.includes(finishReason) || stopAtEnd(text, stops) !== undefined) return 'stop_sequence';
  return finishReason;
}

export interface StopSequenceFix {
  /** Text to add at the end (include_stop_sequence true, the service left the sequence out). */
  append: string;
  /** Characters to cut from the end (include_stop_sequence false, the service kept the sequence). */
  cut: number;
  warning?: ServiceWarning;
}

const NO_FIX: StopSequenceFix = { append: '', cut: 0 };

/** What to change in a completion that ended at a stop sequence so it honours include_stop_sequence. */
export function stopSequenceFix(
  text: string,
  finishReason: unknown,
  request: CanonicalRequest | undefined,
  index: number,
): StopSequenceFix {
  const include = request?.parameters?.include_stop_sequence;
  if (include === undefined) return NO_FIX;
  const stops = requestedStops(request);
  const inText = stopAtEnd(text, stops);
  if (include) {
    if (inText !== undefined) return NO_FIX;
    const named =
      typeof finishReason === 'string' && stops.includes(finishReason)
        ? finishReason
        : stops.length === 1
          ? stops[0]
          : undefined;
    if (named !== undefined) return { append: named, cut: 0 };
    return {
      ...NO_FIX,
      warning: {
        id: 'include_stop_sequence',
        message: `aleph-alpha does not say which stop sequence ended completion ${index}, so it could not be added back to the text`,
      },
    };
  }
  return inText === undefined ? NO_FIX : { append: '', cut: inText.length };
}
