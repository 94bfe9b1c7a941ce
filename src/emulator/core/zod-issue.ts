/** The parts of a zod issue the embedded server's validators word into each protocol's own error messages. */
export interface Issue {
  code: string;
  path: PropertyKey[];
  message: string;
  keys?: string[];
  expected?: string;
  values?: unknown[];
  origin?: string;
  minimum?: number | bigint;
  maximum?: number | bigint;
  inclusive?: boolean;
}

/** `['parameters', 'stop_sequences', 2]` → `parameters.stop_sequences[2]`. */
export function fieldName(path: PropertyKey[]): string {
  return path
    .map((p) => (typeof p === 'number' ? `[${p}]` : String(p)))
    .join('.')
    .replace(/\.\[/g, '[');
}
