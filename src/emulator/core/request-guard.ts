/**
 * What `serve` refuses before a route sees a request, so that a web page the user happens to visit cannot use the
 * server: a browser lets any page send "simple" cross-origin requests (a `text/plain` POST, no preflight) and, by DNS
 * rebinding, even same-origin ones to a name the attacker controls that resolves to 127.0.0.1. So:
 * - the `Host` must name this server (any port): a loopback form (`localhost`, 127.0.0.0/8, `::1`), the address it is bound to,
 *   or, bound to every interface, one of this machine's addresses or its host name — a rebound DNS name is none of
 *   these, and an IP literal cannot be rebound;
 * - a request with an `Origin` must come from the server's own origin (browsers send `Origin` on every
 *   cross-origin POST; SDKs and the CLI send none);
 * - a body a route parses as JSON must say so (`application/json` or `…+json`), since `text/plain`, form and
 *   multipart bodies are what a page may send without asking; a route that takes a form body says so on its route.
 * Each verdict is worded by the protocol that owns the path (its `sendError`).
 */
import { hostname, networkInterfaces } from 'node:os';
import { isIP } from 'node:net';

export interface Refusal {
  status: number;
  code: string;
  message: string;
}

/** What a route's body must be; JSON unless the route says otherwise. */
export type BodyKind = 'json' | 'form' | 'multipart';

const UNSPECIFIED = new Set(['0.0.0.0', '::', '']);

/** Host names (lower case, IPv6 without brackets) that name this server, for a server bound to `boundHost`. */
export function acceptedHostNames(boundHost: string): Set<string> {
  const names = new Set(['localhost', '::1', '0:0:0:0:0:0:0:1', boundHost.toLowerCase().replace(/^\[|\]$/g, '')]);
  if (UNSPECIFIED.has(boundHost)) {
    names.add(hostname().toLowerCase());
    for (const addresses of Object.values(networkInterfaces()))
      for (const address of addresses ?? []) names.add(address.address.toLowerCase());
  }
  return names;
}

function isLoopbackV4(name: string): boolean {
  return isIP(name) === 4 && name.startsWith('127.');
}

/** Splits `Host` into name and port; undefined when it is not a host[:port]. */
function splitHost(host: string): { name: string; port: string | undefined } | undefined {
  const bracketed = /^\[([0-9a-f:.]+)\](?::(\d+))?$/i.exec(host);
  if (bracketed) return { name: bracketed[1]!.toLowerCase(), port: bracketed[2] };
  const plain = /^([^:[\]]+)(?::(\d+))?$/.exec(host);
  if (plain) return { name: plain[1]!.toLowerCase().replace(/\.$/, ''), port: plain[2] };
  return undefined;
}

/** The refusal for a request whose Host or Origin is not this server's, or undefined when both are fine. */
export function foreignRequest(
  headers: Record<string, string | string[] | undefined>,
  server: { names: ReadonlySet<string>; scheme: 'http' | 'https' },
): Refusal | undefined {
  const host = headers.host;
  // HTTP/1.0 clients may send no Host (Node itself refuses HTTP/1.1 without one); no browser does.
  if (host !== undefined) {
    const parts = typeof host === 'string' ? splitHost(host.trim()) : undefined;
    // The port is not checked: a browser sends the authority of the URL it targets, so a page can only make a request
    // here carry another port by going through something else on this machine — a reverse proxy that keeps the
    // client's Host, which must keep working. A rebound name is caught by the name; another page by its Origin.
    if (!parts || !(server.names.has(parts.name) || isLoopbackV4(parts.name)))
      return {
        status: 403,
        code: 'forbidden_host',
        message: `The Host header ${JSON.stringify(host)} does not name this server; use its own address (localhost or the address it listens on)`,
      };
  }
  const origin = headers.origin;
  if (origin !== undefined) {
    const own = typeof host === 'string' ? `${server.scheme}://${host.trim().toLowerCase()}` : undefined;
    if (typeof origin !== 'string' || origin.trim().toLowerCase() !== own)
      return {
        status: 403,
        code: 'forbidden_origin',
        message: `Cross-origin requests are refused (Origin ${JSON.stringify(origin)}); this server answers its own origin only`,
      };
  }
  return undefined;
}

/** The bare media type of a Content-Type header, lower case. */
function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';', 1)[0]!.trim().toLowerCase();
}

/** The refusal for a body of the wrong media type, or undefined. Empty bodies carry no type and pass. */
export function wrongContentType(
  contentType: string | undefined,
  kind: BodyKind,
  hasBody: boolean,
): Refusal | undefined {
  if (!hasBody) return undefined;
  const type = mediaType(contentType);
  const ok =
    kind === 'form'
      ? type === 'application/x-www-form-urlencoded'
      : kind === 'multipart'
        ? type === 'multipart/form-data'
        : type === 'application/json' || /^application\/[a-z0-9.!#$&^_-]+\+json$/.test(type);
  if (ok) return undefined;
  const wanted =
    kind === 'form'
      ? 'application/x-www-form-urlencoded'
      : kind === 'multipart'
        ? 'multipart/form-data'
        : 'application/json';
  return {
    status: 415,
    code: 'unsupported_media_type',
    message: `The request body must be ${wanted}, got ${type === '' ? 'no Content-Type' : `Content-Type ${type}`}`,
  };
}
