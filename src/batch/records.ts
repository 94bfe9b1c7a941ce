/**
 * The output records of a batch, one JSON object per line: `{"line": n, "id"?: …, "result": …}` or
 * `{"line": n, "id"?: …, "error": {"exit_code", "message", "status"?, "code"?}}`. Built as strings: the result is
 * already JSON text, and a record is written once.
 */
import { ApiError, AuthError, isTextgenError } from '../contract/errors.js';

export interface LineError {
  exit_code: number;
  message: string;
  status?: number;
  code?: string;
}

export function recordPrefix(line: number, idJson: string | undefined): string {
  return idJson === undefined ? `{"line":${line}` : `{"line":${line},"id":${idJson}`;
}

export function resultRecord(prefix: string, resultJson: string): string {
  return `${prefix},"result":${resultJson}}\n`;
}

export function errorRecord(prefix: string, error: LineError): string {
  return `${prefix},"error":${JSON.stringify(error)}}\n`;
}

/** Any failure of a line as its record's error; an unexpected error (a bug) is exit code 1, as at the top level. */
export function lineErrorOf(e: unknown): LineError {
  if (!isTextgenError(e))
    return { exit_code: 1, message: `internal error: ${e instanceof Error ? e.message : String(e)}` };
  const out: LineError = { exit_code: e.exitCode, message: e.message };
  if (e instanceof ApiError) {
    out.status = e.status;
    if (e.code !== undefined) out.code = e.code;
  } else if (e instanceof AuthError && e.status !== undefined) {
    out.status = e.status;
  }
  return out;
}
