/** watsonx error bodies as the service writes them: `{"errors":[…],"trace","status_code"}`. */
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { FaultWording } from '../../../src/emulator/core/apply-fault.js';
import { sendJson } from '../../../src/emulator/core/respond.js';

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
  return randomBytes(16).toString('hex');
}

export function watsonxErrorBody(status: number, errors: { code: string; message: string }[]): WatsonxErrorBody {
  return { errors: errors.map((e) => ({ ...e, more_info: MORE_INFO })), trace: newTrace(), status_code: status };
}

export function sendWatsonxError(
  res: ServerResponse,
  status: number,
  errors: { code: string; message: string }[],
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, watsonxErrorBody(status, errors), headers);
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
    status: (status, headers) => sendWatsonxError(res, status, [{ code: codeForStatus(status), message: messageForStatus(status) }], headers),
    busy: (headers) => sendWatsonxError(res, 503, [{ code: codeForStatus(503), message: BUSY_MESSAGE }], headers),
  };
}
