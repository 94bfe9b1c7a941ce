/** Tokens are byte strings; text appears only once they are joined, so a character split across tokens survives. */
export function decodeJoined(chunks: readonly Uint8Array[]): string {
  const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.length;
  }
  // Not fatal: bytes that are no valid UTF-8 (a lone piece of a character) become U+FFFD, as tiktoken's decode does.
  return new TextDecoder('utf-8').decode(all);
}
