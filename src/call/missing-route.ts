/**
 * A 404 in no error shape of the protocol that says only "not found" (FastAPI's `{"detail":"Not Found"}`, a router's
 * plain text, nginx's page) is a route the server does not have, not an unknown model or deployment (those come with the
 * service's code). It read as a bare `HTTP 404: Not Found`; it now names the route, and hints that a server
 * without `/v1/completions` or `/v1/embeddings` may offer only chat — as many OpenAI-compatible servers do.
 */
import type { ApiErrorDetails } from '../contract/errors.js';
import type { HttpRequestSpec, HttpResponse } from '../contract/http.js';

/**
 * The words of a router that has no such route: "Not Found" (FastAPI, an empty 404), "404 page not found" (Go),
 * "404 Not Found" (nginx), "Cannot POST /v1/completions" (Express). Anything else is the service speaking — Ollama's
 * `model "m1" not found, try pulling it first` is about the model, and keeps its words alone.
 */
const NO_SUCH_ROUTE = /^(?:(?:404\s*:?\s*)?(?:page\s+|route\s+|resource\s+)?not\s*found\.?|cannot\s+[a-z]+\s+\/\S*)$/i;

/** What was asked for, per answer: failFromResponse gets only the answer, from several senders. */
const requests = new WeakMap<HttpResponse, { method: string; url: string }>();

/** Remembers which request `res` answers, for the message of a missing route. */
export function rememberRequest(res: HttpResponse, spec: Pick<HttpRequestSpec, 'method' | 'url'>): void {
  requests.set(res, { method: spec.method, url: spec.url });
}

/** `details` with the missing route named, when `res` is a 404 that is not the service's own error. */
export function withMissingRoute(details: ApiErrorDetails, res: HttpResponse): ApiErrorDetails {
  if (res.status !== 404 || details.code !== undefined || !NO_SUCH_ROUTE.test(details.message.trim())) return details;
  const request = requests.get(res);
  if (request === undefined) return details;
  let path: string;
  try {
    // The path alone: a query carries only the API version, and the host is in the profile.
    path = new URL(request.url).pathname;
  } catch {
    return details;
  }
  const chat = /\/chat(?:\/|$)/.test(path);
  return {
    ...details,
    message: `${details.message} (the server has no ${request.method} ${path})`,
    hint:
      details.hint ??
      (chat
        ? "check the profile's url and provider: this server has no chat route there"
        : 'the server may offer only chat: try "textgen chat", or check the profile\'s url and provider'),
  };
}
