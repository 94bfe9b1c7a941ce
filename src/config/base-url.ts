/** What makes a base URL usable: checked the same way for flags, variables, config files and `profiles add`. */

export const NOT_HTTP_URL = 'must be an http:// or https:// URL';

/**
 * Why a base URL is unusable: undefined when it is fine, else `{ reason }` with the particular reason when there
 * is one worth naming beyond NOT_HTTP_URL. The WHATWG parser quietly drops tabs, newlines and outer spaces and
 * accepts port 0; a base URL the user typed is taken as typed or refused, never repaired.
 */
export function urlProblem(value: string): { reason?: string } | undefined {
  if (!/^https?:\/\//i.test(value)) return {};
  if (/[\s\u0000-\u001f\u007f-\u009f]/.test(value)) return { reason: 'it contains spaces or control characters' };
  const port = /^https?:\/\/(?:[^/?#@]*@)?(?:\[[^\]]*\]|[^/?#:]*):(\d+)(?:[/?#]|$)/i.exec(value)?.[1];
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535))
    return { reason: `port ${port} is out of range (1 to 65535)` };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { reason: /^https?:\/\/(?:[/?#]|$)/i.test(value) ? 'it has no host name' : 'it does not parse' };
  }
  if (url.hostname === '') return { reason: 'it has no host name' };
  // Request paths are appended to the base URL: a query or fragment would end up in the middle of them.
  if (url.search !== '' || url.hash !== '' || /[?#]/.test(value))
    return { reason: 'a base URL takes no query (?…) or fragment (#…)' };
  return undefined;
}
