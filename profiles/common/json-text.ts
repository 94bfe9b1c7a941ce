import { UnexpectedAnswer } from '../../src/contract/errors.js';

/** A 2xx body as JSON for the checks that read bodies themselves (health probes); not JSON is an UnexpectedAnswer. */
export function jsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new UnexpectedAnswer('not JSON');
  }
}
