/**
 * The log of a server started without one (the bench's, the tests'): known by identity, so that a line nobody
 * reads is not formatted at all (a fault's description, a request's status line: per request, on a busy server).
 */
export const silentLog = (_line: string): void => {};

export function logs(log: (line: string) => void): boolean {
  return log !== silentLog;
}
