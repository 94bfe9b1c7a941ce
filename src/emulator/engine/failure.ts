/**
 * An engine that answers through another service (`serve --upstream`, src/gateway/) can fail in ways the local
 * engines cannot: the upstream refused, was busy, went silent or cut its stream. It throws this, protocol-neutral,
 * and the server (src/emulator/core/index.ts) words it in the front protocol: before the headers as that
 * protocol's error answer with `status`, `code`, `message` and `headers` (Retry-After); inside a stream as that
 * protocol's in-stream error event.
 */
export class EngineFailure extends Error {
  readonly status: number;
  readonly code: string;
  readonly headers: Record<string, string>;

  constructor(status: number, code: string, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'EngineFailure';
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

export function isEngineFailure(error: unknown): error is EngineFailure {
  return error instanceof EngineFailure;
}
