/** watsonx error bodies as the service writes them: `{"errors":[…],"trace","status_code"}`. */
import type { ServerResponse } from 'node:http';
import type { FaultWording } from '../../../src/emulator/core/apply-fault.js';
import { sendJson } from '../../../src/emulator/core/respond.js';
import { answerHex } from '../../../src/emulator/core/answer-clock.js';

export const MORE_INFO = 'https://cloud.ibm.com/apidocs/watsonx-ai';

export interface WatsonxErrorItem {
  code: string;
  message: string;
  more_info: string;
}

export interface WatsonxErrorBody {
  errors: WatsonxErrorItem[];
  trace: string;
  status_code: number;
}

export function newTrace(): string {
  return answerHex(16);
}

/** One problem; `more_info` defaults to the API reference (the service points some codes at a route's anchor). */
export interface ErrorItem {
  code: string;
  message: string;
  more_info?: string;
}

export function watsonxErrorBody(status: number, errors: ErrorItem[]): WatsonxErrorBody {
  return {
    errors: errors.map((e) => ({ code: e.code, message: e.message, more_info: e.more_info ?? MORE_INFO })),
    trace: newTrace(),
    status_code: status,
  };
}

export function sendWatsonxError(
  res: ServerResponse,
  status: number,
  errors: ErrorItem[],
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, watsonxErrorBody(status, errors), headers);
}

/**
 * The `/ml/v4` (deployments) error body, which is older than `/ml/v1`'s: `{"trace","errors":[{code,message}]}`,
 * no `status_code`, no `more_info` — as the service answered `GET /ml/v4/deployments/{id}` for a deleted deployment
 * (docs/watsonx.md, "Errors").
 */
export function sendV4Error(
  res: ServerResponse,
  status: number,
  errors: { code: string; message: string }[],
  headers: Record<string, string> = {},
): void {
  sendJson(
    res,
    status,
    { trace: newTrace(), errors: errors.map((e) => ({ code: e.code, message: e.message })) },
    headers,
  );
}

/** `model_not_supported` (404), the answer to a model id the service does not list; `route` is the API anchor. */
export function modelNotSupported(modelId: string, route: string): ErrorItem {
  return {
    code: 'model_not_supported',
    message: `Model '${modelId}' is not supported`,
    more_info: `${MORE_INFO}#${route}`,
  };
}

/** `model_no_support_for_function` (400): a listed model that cannot do what the route does. */
export function modelNoSupportForFunction(modelId: string, fn: string, why?: string): ErrorItem {
  return {
    code: 'model_no_support_for_function',
    message: `Model '${modelId}' does not support function 'function_${fn}'${why ? `: ${why}` : ''}`,
  };
}

/** `deployment_does_not_exist` (404): neither a deployment id nor a serving name the service knows. */
export function deploymentDoesNotExist(idOrName: string): { code: string; message: string } {
  return {
    code: 'deployment_does_not_exist',
    message: `Deployment with id '${idOrName}' does not exist. Re-try with a valid deployment id.`,
  };
}

/** The code a fault's bare status is dressed in when the test gave no body. */
export function codeForStatus(status: number): string {
  const codes: Record<number, string> = {
    400: 'invalid_request_entity',
    401: 'authorization_rejected',
    403: 'forbidden',
    404: 'model_not_supported',
    408: 'request_timeout',
    429: 'too_many_requests',
    500: 'internal_server_error',
    502: 'bad_gateway',
    503: 'service_unavailable',
    504: 'gateway_timeout',
  };
  return codes[status] ?? (status >= 500 ? 'internal_server_error' : 'invalid_request_entity');
}

export function messageForStatus(status: number): string {
  if (status === 429) return 'The rate limit for this instance has been exceeded; retry later';
  if (status >= 500) return `The service is temporarily unable to process the request (HTTP ${status})`;
  return `The request was rejected (HTTP ${status})`;
}

/**
 * watsonx has no documented "queue full" code; a busy model surfaces as 503 Service Unavailable, so a busy fault is
 * that, with the service's own code for it.
 */
export const BUSY_MESSAGE = 'The model is busy: too many requests are waiting for it; retry later';

export function watsonxFaultWording(res: ServerResponse): FaultWording {
  return {
    status: (status, headers) =>
      sendWatsonxError(res, status, [{ code: codeForStatus(status), message: messageForStatus(status) }], headers),
    busy: (headers) => sendWatsonxError(res, 503, [{ code: codeForStatus(503), message: BUSY_MESSAGE }], headers),
  };
}

/** The same faults in the `/ml/v4` error shape. */
export function v4FaultWording(res: ServerResponse): FaultWording {
  return {
    status: (status, headers) =>
      sendV4Error(res, status, [{ code: codeForStatus(status), message: messageForStatus(status) }], headers),
    busy: (headers) => sendV4Error(res, 503, [{ code: codeForStatus(503), message: BUSY_MESSAGE }], headers),
  };
}
