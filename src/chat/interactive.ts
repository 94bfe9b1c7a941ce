/**
 * `textgen chat` at a terminal with no message: a conversation. Each turn reads a message at the prompt (on
 * stderr; a line ending in `\` goes on to the next line, and `"""` opens and closes a block of lines), sends the
 * whole history, streams the answer to stdout and keeps it in the history. Commands: /system [TEXT], /reset,
 * /save FILE, /help, /exit (or Ctrl-D). Ctrl-C during an answer stops that answer and keeps the session (the text
 * that arrived stays in the history); at the prompt it leaves, with exit 130.
 */
import type { Interface as ReadlineInterface } from 'node:readline';
import type { Context } from '../context.js';
import { Interrupted, isTextgenError } from '../contract/errors.js';
import type { ChatMessage, ChatResult } from '../contract/chat.js';
import { checkDestination, type Destination } from '../config/destination.js';
import { holdFileLock } from '../config/file-lock.js';
import { writeConversation } from './conversation-file.js';
import { prepareChat, type ChatSetup } from './prepare.js';
import { runChatTurn } from './run-chat.js';

export interface InteractiveOptions {
  /** The conversation so far (--continue, --system). */
  history: ChatMessage[];
  /** Where each finished turn is written (--save, or the --continue file): checked, and locked by the caller. */
  saveTo?: Destination | undefined;
}

const HELP = [
  'Enter sends the message; end a line with \\ to go on to the next, or put a long message between lines of """.',
  '/system TEXT  set the system message (/system alone shows it)',
  '/reset        forget the conversation (the system message stays)',
  '/save FILE    write the conversation to FILE (JSONL, one message per line); /save --force FILE replaces one',
  '/exit         leave (or Ctrl-D); Ctrl-C stops an answer, and leaves at the prompt',
].join('\n');

type Read = { kind: 'message'; text: string } | { kind: 'eof' } | { kind: 'interrupt' };

/** A terminal's stdin: raw mode lets Ctrl-C arrive as a byte instead of a signal that would end the whole command. */
interface TtyInput extends NodeJS.ReadableStream {
  setRawMode?: (mode: boolean) => unknown;
  isRaw?: boolean;
}

export async function runInteractiveChat(ctx: Context, setup: ChatSetup, opts: InteractiveOptions): Promise<number> {
  const ready = await prepareChat(ctx, setup);
  const stream = setup.stream === 'auto' ? true : setup.stream;
  const conversation: ChatMessage[] = [...opts.history];
  const say = (line: string) => ctx.stderr.write(`${line}\n`);
  const target = ready.target.deployment ?? ready.target.model ?? '';
  if (!ctx.reporter.quiet) {
    say(
      `chat with ${target} (${ready.profile.provider}, profile ${ready.profile.name}); /help for commands, Ctrl-D to leave`,
    );
    if (conversation.length > 0)
      say(`(${conversation.length} message${conversation.length === 1 ? '' : 's'} of history)`);
  }
  /** Set while the session's own file could not be written: the session goes on, and ends with exit 7. */
  let unsaved: string | undefined;
  const saveTurn = async (dest: Destination) => {
    try {
      await writeConversation(dest, conversation);
      unsaved = undefined;
    } catch (e) {
      unsaved = (e as Error).message;
      say(`error: ${unsaved}\nhint: /save ANOTHER_FILE keeps the conversation`);
    }
  };
  /** `/save [--force] FILE`: checked as --save is; an existing file (other than the session's own) needs --force. */
  const saveAs = async (words: string) => {
    const force = /^--force(\s|$)/.test(words);
    const name = force ? words.slice('--force'.length).trim() : words;
    if (name === '') return say('/save needs a file name, e.g. /save chat.jsonl');
    const dest = await checkDestination('/save', name, { cwd: ctx.cwd });
    if (opts.saveTo !== undefined && dest.target === opts.saveTo.target) {
      await writeConversation(opts.saveTo, conversation);
    } else {
      if (dest.exists && !force) return say(`/save: ${name} exists already; /save --force ${name} replaces it`);
      const lock = await holdFileLock(dest.target, name);
      try {
        await writeConversation(dest, conversation);
      } finally {
        lock.release();
      }
    }
    say(`(saved ${conversation.length} messages to ${name})`);
  };

  for (;;) {
    await ctx.out.flush();
    const read = await readMessage(ctx);
    if (read.kind === 'eof') {
      ctx.stderr.write('\n');
      return unsaved === undefined ? 0 : 7;
    }
    if (read.kind === 'interrupt') throw new Interrupted();
    const input = read.text;
    if (input.trim() === '') continue;
    if (input.startsWith('/')) {
      const [command = ''] = input.trim().split(/\s+/);
      const arg = input.trim().slice(command.length).trim();
      switch (command) {
        case '/exit':
        case '/quit':
          return unsaved === undefined ? 0 : 7;
        case '/help':
          say(HELP);
          continue;
        case '/reset': {
          const system = conversation[0]?.role === 'system' ? conversation[0] : undefined;
          conversation.length = 0;
          if (system) conversation.push(system);
          say('(conversation cleared)');
          continue;
        }
        case '/system':
          if (arg === '') {
            say(conversation[0]?.role === 'system' ? `system: ${conversation[0].content}` : '(no system message)');
          } else {
            if (conversation[0]?.role === 'system') conversation[0] = { role: 'system', content: arg };
            else conversation.unshift({ role: 'system', content: arg });
            say('(system message set)');
          }
          continue;
        case '/save':
          try {
            await saveAs(arg);
          } catch (e) {
            say(`error: ${(e as Error).message}`);
          }
          continue;
        default:
          say(`unknown command ${command}; /help lists them`);
          continue;
      }
    }

    conversation.push({ role: 'user', content: input });
    const outcome = await answer(ctx, setup, ready, conversation, stream);
    if (outcome.kind === 'answered') {
      conversation.push({ role: 'assistant', content: outcome.result.choices[0]?.message.content ?? '' });
    } else {
      if (outcome.partial !== undefined && outcome.partial !== '')
        conversation.push({ role: 'assistant', content: outcome.partial });
      // Nothing came back: the message goes, so the next one is not a second user message in a row.
      else conversation.pop();
      say(outcome.message);
    }
    if (opts.saveTo !== undefined && outcome.kind === 'answered') await saveTurn(opts.saveTo);
  }
}

type Outcome = { kind: 'answered'; result: ChatResult } | { kind: 'failed'; message: string; partial?: string };

/** One turn; Ctrl-C (a 0x03 byte in raw mode) aborts this turn only. */
async function answer(
  ctx: Context,
  setup: ChatSetup,
  ready: Awaited<ReturnType<typeof prepareChat>>,
  conversation: ChatMessage[],
  stream: boolean,
): Promise<Outcome> {
  const stop = new AbortController();
  const input = ctx.stdin as TtyInput;
  const onData = (chunk: Buffer | string) => {
    if ((typeof chunk === 'string' ? chunk : chunk.toString('latin1')).includes('\u0003')) stop.abort();
  };
  const wasRaw = input.isRaw === true;
  input.setRawMode?.(true);
  input.on('data', onData);
  input.resume();
  let partial: string | undefined;
  try {
    const result = await runChatTurn(ctx, {
      op: ready.op,
      profile: ready.profile,
      request: { messages: [...conversation], parameters: ready.parameters, ...ready.features },
      target: { ...ready.target, stream },
      extra: setup.extra,
      present: setup.present,
      signal: stop.signal,
      onPartial: (r) => {
        partial = r.choices[0]?.message.content;
      },
    });
    return result === undefined ? { kind: 'failed', message: '(dry run: nothing sent)' } : { kind: 'answered', result };
  } catch (e) {
    if (e instanceof Interrupted && stop.signal.aborted && !ctx.signal.aborted) {
      return { kind: 'failed', message: '(answer stopped)', ...(partial !== undefined ? { partial } : {}) };
    }
    if (isTextgenError(e) && !(e instanceof Interrupted)) {
      return {
        kind: 'failed',
        message: `error: ${e.message}${e.hint ? `\nhint: ${e.hint}` : ''}`,
        ...(partial !== undefined ? { partial } : {}),
      };
    }
    throw e;
  } finally {
    input.off('data', onData);
    input.setRawMode?.(wasRaw);
    input.pause();
  }
}

/** One message from the prompt: a line, lines joined by a trailing `\`, or a `"""` block. */
async function readMessage(ctx: Context): Promise<Read> {
  const readline = await import('node:readline');
  const rl: ReadlineInterface = readline.createInterface({
    input: ctx.stdin,
    output: ctx.stderr,
    terminal: true,
    prompt: 'you> ',
  });
  const lines: string[] = [];
  let block = false;
  return new Promise<Read>((resolve) => {
    let settled = false;
    const finish = (read: Read) => {
      if (settled) return;
      settled = true;
      ctx.signal.removeEventListener('abort', onAbort);
      rl.close();
      resolve(read);
    };
    const onAbort = () => finish({ kind: 'interrupt' });
    ctx.signal.addEventListener('abort', onAbort);
    rl.on('line', (line) => {
      if (!block && lines.length === 0 && line.trim().startsWith('"""')) {
        block = true;
        const rest = line.trim().slice(3);
        if (rest.endsWith('"""') && rest.length >= 3) return finish({ kind: 'message', text: rest.slice(0, -3) });
        if (rest !== '') lines.push(rest);
      } else if (block) {
        if (line.trimEnd().endsWith('"""')) {
          lines.push(line.trimEnd().slice(0, -3));
          return finish({ kind: 'message', text: lines.join('\n').replace(/\n$/, '') });
        }
        lines.push(line);
      } else if (line.endsWith('\\')) {
        lines.push(line.slice(0, -1));
      } else {
        lines.push(line);
        return finish({ kind: 'message', text: lines.join('\n') });
      }
      rl.setPrompt('...> ');
      rl.prompt();
    });
    rl.on('SIGINT', () => {
      ctx.stderr.write('\n');
      finish({ kind: 'interrupt' });
    });
    rl.on('close', () => finish({ kind: 'eof' }));
    // Ctrl-D typed while the terminal was still in line mode may have ended stdin already: no 'close' would come.
    const stdin = ctx.stdin as NodeJS.ReadableStream & { readableEnded?: boolean };
    if (stdin.readableEnded === true) return finish({ kind: 'eof' });
    rl.prompt();
  });
}
