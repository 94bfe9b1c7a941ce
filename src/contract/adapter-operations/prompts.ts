/**
 * Multimodal prompts: text, images and token ids as one prompt (the item format of Aleph Alpha's API, which is the
 * only service with it), and the operation an adapter implements to build them from command-line flags. Types only.
 */

export interface TextControl {
  start: number;
  length: number;
  factor: number;
  token_overlap?: 'partial' | 'complete';
}

export interface ImageControl {
  rect: { left: number; top: number; width: number; height: number };
  factor: number;
  token_overlap?: 'partial' | 'complete';
}

export interface TokenControl {
  index: number;
  factor: number;
}

export type PromptItem =
  | { type: 'text'; data: string; controls?: TextControl[] }
  | { type: 'image'; data: string; x?: number; y?: number; size?: number; controls?: ImageControl[] }
  | { type: 'token_ids'; data: number[]; controls?: TokenControl[] };

/** `Prompt`: a string, or items concatenated into one prompt. */
export type MultimodalPrompt = string | PromptItem[];

/** A document for `qa` and `summarize`: a Word file, text, or a multimodal prompt. */
export type TaskDocument = { docx: string } | { text: string } | { prompt: PromptItem[] };

/**
 * How an adapter reads what the command line names: the CLI lends it (src/options/file-io.ts), with the CLI's path
 * rules and messages, so the adapter holds no flag or file conventions of its own.
 */
/** At most `limit` bytes of a file: a larger file, `/dev/zero` or an endless FIFO is a UsageError with `hint`. */
export interface ReadBound {
  limit: number;
  hint: string;
}

export interface FileIo {
  /** The bytes of the file `path` given to `flag` (`~/`, relative to cwd); a UsageError naming the flag when unreadable. */
  readFile(flag: string, path: string, bound?: ReadBound): Promise<Uint8Array>;
  /** A JSON option's value: inline JSON, `@file` or `@-` (stdin); a UsageError naming the flag when it is not JSON. */
  readJson(flag: string, value: string): Promise<unknown>;
  /** All of stdin as text, for `@-`. */
  stdin?: () => Promise<string>;
  /** The command's abort signal: Ctrl-C ends a file read that is under way. */
  signal?: AbortSignal;
}

export interface PromptOptions {
  /** Plain text: `--prompt`, or the prompt words of `complete`. */
  text?: string | undefined;
  /** `--image` values, each `@path` (a bare path is accepted too), in the order given. */
  images?: readonly string[] | undefined;
  /** `--prompt-json`: an array of prompt items, inline or `@items.json` (`@-` for stdin). */
  promptJson?: string | undefined;
}

/** Prompts with images and prompt items (`--image`, `--prompt-json`, `--document`), for adapters whose service takes them. */
export interface MultimodalPrompts {
  /** The prompt the flags describe, or undefined when none of them was given. Reads the files named. */
  buildPrompt(options: PromptOptions, io: FileIo): Promise<MultimodalPrompt | undefined>;
  /** One `--document` value (`@file.docx`, `@file`, `@-` or text). */
  readDocument(flag: string, value: string, io: FileIo): Promise<TaskDocument>;
}
