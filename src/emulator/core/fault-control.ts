/**
 * The switches of a running server, reachable without code: the control endpoint `/__textgen/faults` (queue,
 * list, clear) and the fault a single request carries in `X-Textgen-Fault` or `?textgen_fault=`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { formatFault, parseFaultSpec } from './fault-spec.js';
import type { FaultQueue } from './fault-queue.js';
import { sendJson } from './respond.js';
import type { Fault } from './types.js';

export const CONTROL_PREFIX = '/__textgen/';
export const FAULTS_PATH = '/__textgen/faults';
export const FAULT_HEADER = 'x-textgen-fault';
export const FAULT_QUERY = 'textgen_fault';

/** One queued fault as GET shows it: its spec, its fields, and how many more requests it will hit. */
export interface FaultListing {
  spec: string;
  kind: Fault['kind'];
  /** A number, or "*" for every request. */
  remaining: number | '*';
  [field: string]: unknown;
}

function listing(queue: FaultQueue): FaultListing[] {
  return queue.list().map(({ fault, remaining }) => {
    const fields: Record<string, unknown> = { ...fault };
    if (fault.times === Infinity) fields.times = '*';
    return {
      ...fields,
      spec: formatFault(fault),
      kind: fault.kind,
      remaining: remaining === Infinity ? '*' : remaining,
    };
  });
}

/** Answers a request under /__textgen/ (never recorded, never faulted). */
export function handleControl(
  method: string,
  path: string,
  body: string,
  res: ServerResponse,
  queue: FaultQueue,
  log: (line: string) => void,
): void {
  if (path !== FAULTS_PATH) {
    sendJson(res, 404, { error: `No control route ${path}: the fault switches live at ${FAULTS_PATH}` });
    return;
  }
  switch (method) {
    case 'GET':
      sendJson(res, 200, { faults: listing(queue) });
      return;
    case 'POST': {
      let faults: Fault[];
      try {
        faults = parseFaultSpec(body);
      } catch (e) {
        sendJson(res, 400, { error: (e as Error).message });
        return;
      }
      queue.pushAll(faults);
      log(`faults queued: ${faults.map(formatFault).join('; ')}`);
      sendJson(res, 201, { queued: faults.map(formatFault), faults: listing(queue) });
      return;
    }
    case 'DELETE': {
      const cleared = queue.clear();
      log(`faults cleared: ${cleared}`);
      sendJson(res, 200, { cleared, faults: [] });
      return;
    }
    default:
      sendJson(
        res,
        405,
        { error: `${method} is not allowed on ${FAULTS_PATH}: use GET, POST or DELETE` },
        { allow: 'GET, POST, DELETE' },
      );
  }
}

/**
 * The fault a request carries itself: the header, else the query parameter. One fault only (`times` does not
 * apply); a bad spec is an error the caller answers with 400 in the protocol's shape.
 */
export function requestFault(
  req: IncomingMessage,
  query: { first(name: string): string | null },
): { fault?: Fault; error?: string } {
  const header = req.headers[FAULT_HEADER];
  const [source, spec] =
    header !== undefined
      ? ['X-Textgen-Fault', Array.isArray(header) ? header.join(';') : header]
      : ['textgen_fault', query.first(FAULT_QUERY)];
  if (spec === null) return {};
  let faults: Fault[];
  try {
    faults = parseFaultSpec(spec);
  } catch (e) {
    return { error: `${source}: ${(e as Error).message}` };
  }
  if (faults.length > 1)
    return { error: `${source} takes one fault, got ${faults.length}; queue several with POST ${FAULTS_PATH}` };
  // The request names its own target: a queue's `times` and `path` mean nothing here.
  const { times: _times, path: _path, ...fault } = faults[0]!;
  return { fault: fault as Fault };
}
