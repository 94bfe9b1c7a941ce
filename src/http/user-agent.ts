/**
 * The `User-Agent` every request carries: `textgen/<version> (node/<version>; <platform>-<arch>)`. Gateways, rate
 * limiters and support desks identify clients by it, as they do the vendors' SDKs (docs/sdk-fidelity-openai.md).
 */
import { packageVersion } from '../version.js';
import { merged } from '../contract/spread.js';

let cached: string | undefined;

export function userAgent(): string {
  cached ??= `textgen/${packageVersion()} (node/${process.versions.node}; ${process.platform}-${process.arch})`;
  return cached;
}

/** The request with a `user-agent` header, unless it names one already (any spelling of the header name). */
export function withUserAgent<T extends { headers: Record<string, string> }>(request: T, agent: string): T {
  for (const name in request.headers) if (name.toLowerCase() === 'user-agent') return request;
  return { ...request, headers: merged(request.headers, { 'user-agent': agent }) };
}
