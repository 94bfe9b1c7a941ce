/**
 * A request's path and query, as `new URL(target, 'http://localhost')` gives them. Nearly every target is plain
 * (`/openai/deployments/demo/completions?api-version=2024-10-21`): nothing to decode, no dot segment, no `//`, no
 * fragment, for which URL changes nothing; those are split by hand, which cost a fraction of building a URL (a
 * measurable share of serve's time per request). Anything else goes through URL.
 */

export interface RequestTarget {
  pathname: string;
  /** Each name's last value (Object.fromEntries of the search parameters). */
  query: Record<string, string>;
  /** A name's first value, or null (URLSearchParams.get). */
  first(name: string): string | null;
}

const PLAIN = /^\/(?!\/)[A-Za-z0-9\-_~/.]*(?:\?[A-Za-z0-9\-_~.=&]*)?$/;

export function requestTarget(target: string): RequestTarget {
  if (PLAIN.test(target) && !target.includes('/.')) return plainTarget(target);
  const url = new URL(target, 'http://localhost');
  const params = url.searchParams;
  return { pathname: url.pathname, query: Object.fromEntries(params), first: (name) => params.get(name) };
}

function plainTarget(target: string): RequestTarget {
  const mark = target.indexOf('?');
  if (mark < 0) return { pathname: target, query: {}, first: () => null };
  const pairs: [string, string][] = [];
  for (const piece of target.slice(mark + 1).split('&')) {
    if (piece === '') continue;
    const eq = piece.indexOf('=');
    pairs.push(eq < 0 ? [piece, ''] : [piece.slice(0, eq), piece.slice(eq + 1)]);
  }
  return {
    pathname: target.slice(0, mark),
    query: Object.fromEntries(pairs),
    first: (name) => pairs.find(([n]) => n === name)?.[1] ?? null,
  };
}
