/**
 * Reads a stream (stdin) to its end as UTF-8. Bytes are joined before decoding so a character
 * split across chunks survives; a stream that has already ended yields "" instead of waiting for
 * an 'end' event that will never come again.
 */
export async function readStreamText(stream: NodeJS.ReadableStream): Promise<string> {
  const readable = stream as NodeJS.ReadableStream & { readableEnded?: boolean; destroyed?: boolean };
  if (readable.readableEnded === true || readable.destroyed === true) return '';
  const chunks: Buffer[] = [];
  for await (const chunk of stream) {
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk));
  }
  return stripBom(Buffer.concat(chunks).toString('utf8'));
}

export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
