/** What a local task handler decides: a 200 body, or an error in the service's `{"error","code"}` terms. */
export type TaskAnswer = { ok: true; body: unknown } | { ok: false; status: number; code: string; message: string };

export function success(body: unknown): TaskAnswer {
  return { ok: true, body };
}

export function badRequest(message: string): TaskAnswer {
  return { ok: false, status: 400, code: 'BAD_REQUEST', message };
}

/** A request whose documents unpack to more than the server takes (docx.ts): the service's 413 code. */
export function tooLarge(message: string): TaskAnswer {
  return { ok: false, status: 413, code: 'PAYLOAD_TOO_LARGE', message };
}

/** Six decimals: enough for any score, and answers stay readable. */
export function round(x: number): number {
  const r = Math.round(x * 1e6) / 1e6;
  // JSON has no negative zero; keep "-0" out of the answers.
  return r === 0 ? 0 : r;
}
