/**
 * Conversations as files (`--save FILE.jsonl`, `--continue FILE.jsonl`, `/save FILE`): one message per line,
 * `{"role": …, "content": …}` (with `tool_calls` on an assistant turn that called tools, and `{"role": "tool",
 * "tool_call_id", "content"}` for a tool's result), the same shapes `--messages` takes in an array. Written whole through a temporary file
 * and a rename, readable by its owner only (0600): a conversation may hold what others must not read.
 *
 * Before anything is sent the file is checked as every file textgen replaces is (src/config/destination.ts: a
 * regular file or none, no other user's symbolic link, a directory that can be written) and locked for the whole
 * turn (src/config/file-lock.ts): a second `chat --continue` on the same file is refused (exit 2) instead of both
 * answering and one turn being lost. The history is read under the lock, so it is what the last writer left.
 */
import { holdFileLock, type HeldLock } from '../config/file-lock.js';
import {
  checkDestination,
  lateFailure,
  makeDestinationDir,
  recheckDestination,
  type Destination,
} from '../config/destination.js';
import { writePrivateFile } from '../config/private-file.js';
import { UsageError } from '../contract/errors.js';
import { readTextFile } from '../options/input.js';
import type { ChatMessage } from '../contract/chat.js';
import { checkMessage } from './messages.js';

/** A conversation file, checked and locked: `release` when the turn (or the session) is over. */
export interface ConversationFile {
  dest: Destination;
  release(): void;
}

/**
 * Checks `file` and takes its lock; `refuseExisting` (`--save` without `--force`) refuses a file that is there
 * already, since replacing it would lose the conversation it holds.
 */
export async function openConversationFile(
  flag: string,
  file: string,
  cwd: string,
  { refuseExisting = false }: { refuseExisting?: boolean } = {},
): Promise<ConversationFile> {
  const dest = await checkDestination(flag, file, { cwd });
  if (refuseExisting && dest.exists) {
    throw new UsageError(`${flag}: ${file} exists already; textgen does not replace a saved conversation`, {
      hint: `to add this turn to it, use --continue ${file}; to replace it, add --force`,
    });
  }
  // The lock lives next to the file: a directory that --save would create is created now (0700, as at the write).
  await makeDestinationDir(dest);
  const lock: HeldLock = await holdFileLock(dest.target, file);
  return { dest, release: () => lock.release() };
}

/**
 * The messages of a saved conversation; every line is checked, and a bad one is named by its number. Nothing the
 * file holds is ever quoted: a --continue aimed at a file that is not a conversation must not print it.
 */
export async function readConversation(dest: Destination, cwd: string): Promise<ChatMessage[]> {
  const text = await readTextFile(dest.flag, dest.shown, { cwd });
  const messages: ChatMessage[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    const where = `${dest.flag} ${dest.shown} line ${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new UsageError(`${where} is not JSON; a conversation file has one {"role", "content"} object per line`, {
        hint: 'is it the file you meant? only files written by chat --save (or in that shape) can be continued',
      });
    }
    messages.push(checkMessage(value, where, { quote: false }));
  });
  return messages;
}

/**
 * One line per message. Plain messages stay `{"role", "content"}`, as before tools (old files load, and files
 * without tools are what they always were); an assistant turn that called tools adds `tool_calls`, a tool result
 * is `{"role": "tool", "tool_call_id", "content"}` — the shapes `--messages` and the chat APIs take.
 */
export function conversationText(messages: readonly ChatMessage[]): string {
  return messages.map((m) => `${JSON.stringify(fileMessage(m))}\n`).join('');
}

function fileMessage(m: ChatMessage): Record<string, unknown> {
  if (m.role === 'tool') return { role: 'tool', tool_call_id: m.tool_call_id, content: m.content };
  if (m.tool_calls !== undefined && m.tool_calls.length > 0)
    return { role: m.role, content: m.content, tool_calls: m.tool_calls };
  return { role: m.role, content: m.content };
}

/**
 * Writes the whole conversation at once (0600, atomic); the directory is created when missing, never
 * re-permissioned. It comes after the answer was printed: a failure now is exit 7 naming the file and the cause.
 */
export async function writeConversation(dest: Destination, messages: readonly ChatMessage[]): Promise<void> {
  await recheckDestination(dest);
  try {
    await writePrivateFile(dest.target, conversationText(messages), { followLinks: false });
  } catch (e) {
    throw lateFailure(dest, e);
  }
}
