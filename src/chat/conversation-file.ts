/**
 * Conversations as files (`--save FILE.jsonl`, `--continue FILE.jsonl`, `/save FILE`): one message per line,
 * `{"role": …, "content": …}`, the same shape `--messages` takes in an array. Written whole through a temporary file
 * and a rename, readable by its owner only (0600): a conversation may hold what others must not read.
 */
import { writePrivateFile } from '../config/private-file.js';
import { UsageError } from '../contract/errors.js';
import { readTextFile } from '../options/input.js';
import type { ChatMessage } from '../contract/chat.js';
import { checkMessage } from './messages.js';

/** The messages of a saved conversation; every line is checked, and a bad one is named by its number. */
export async function readConversation(flag: string, file: string, cwd: string): Promise<ChatMessage[]> {
  const text = await readTextFile(flag, file, { cwd });
  const messages: ChatMessage[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      throw new UsageError(`${flag} ${file} line ${i + 1} is not JSON: ${(e as Error).message}`, {
        hint: 'a conversation file has one {"role", "content"} object per line',
      });
    }
    messages.push(checkMessage(value, `${flag} ${file} line ${i + 1}`));
  });
  return messages;
}

export function conversationText(messages: readonly ChatMessage[]): string {
  return messages.map((m) => `${JSON.stringify({ role: m.role, content: m.content })}\n`).join('');
}

/** Writes the whole conversation at once (0600, atomic); the directory is created when missing, never re-permissioned. */
export async function writeConversation(file: string, cwd: string, messages: readonly ChatMessage[]): Promise<void> {
  const path = await import('node:path');
  await writePrivateFile(path.resolve(cwd, file), conversationText(messages));
}
