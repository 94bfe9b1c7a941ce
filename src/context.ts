import type { CommandSpec } from './command.js';
import type { ColorLevel } from './output/paint.js';
import type { Authenticator } from './contract/adapter.js';
import type { ResolvedProfile } from './contract/profile.js';
import type { GlobalOptions } from './global-options.js';
import type { HttpClient } from './contract/http.js';
import type { KnownSecrets } from './contract/redact.js';
import type { DataSink } from './output/safe-write.js';
import type { OutputFormat } from './output/format.js';
import type { Prompter } from './prompt/prompter.js';

/** Terminal policy in one place (STYLE: gh's IOStreams). */
export interface Terminal {
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** Prompts allowed: stdin and stderr are TTYs, CI unset, no --no-interactive. */
  interactive: boolean;
  /** Colour on stderr. */
  color: boolean;
  /** How many colours stderr takes when `color` is on (0 when it is off): chalk's level. */
  colorLevel: ColorLevel;
}

/** Everything that goes to stderr. */
export interface Reporter {
  warn(message: string): void;
  info(message: string): void;
  /** --verbose trace lines; already redacted by the caller. */
  trace(line: string): void;
  readonly quiet: boolean;
  readonly verbose: boolean;
}

/** `-o`, `-j` and `-r` as given, resolved once for every command that writes a value (src/output/format.ts). */
export interface OutputChoice {
  format: OutputFormat;
  /** `-j EXPR`: a JMESPath query over the result; then the value is written structured. */
  jmes: string | undefined;
  /** `-r`: a string result bare, like `jq -r`. */
  rawOutput: boolean;
}

/** What a command may touch. A command never reads process.* itself. */
export interface Context {
  globals: GlobalOptions;
  env: Record<string, string | undefined>;
  cwd: string;
  stdin: NodeJS.ReadableStream;
  /** stdout, for data only. */
  out: DataSink;
  /** `-o/-j/-r`, parsed once (a bad `-o` is a UsageError from the first command that asks). */
  output(): OutputChoice;
  /** The raw stderr stream, for spinners and prompts (terminal policy decides when they appear). */
  stderr: NodeJS.WritableStream;
  reporter: Reporter;
  /**
   * Every secret this invocation knows (credentials, a URL's password, tokens sent in headers): the reporter, the
   * top-level error printer, traces and batch records mask them, whatever echoed them back.
   */
  secrets: KnownSecrets;
  terminal: Terminal;
  /** Aborted on Ctrl-C. */
  signal: AbortSignal;
  now(): number;
  /** The profile after precedence: config only, nothing started. A local profile has no URL until `connect`. */
  profile(): Promise<ResolvedProfile>;
  /**
   * The profile ready to send to: a local profile without a URL gets the embedded server's, started here (once per
   * profile; with --dry-run, the address `textgen serve` listens on instead); any other profile as it is.
   */
  connect(profile: ResolvedProfile): Promise<ResolvedProfile>;
  /** One HTTP client per profile, configured from it (timeouts, retries, TLS, proxies, trace). */
  http(profile: ResolvedProfile): Promise<HttpClient>;
  authenticator(profile: ResolvedProfile): Promise<Authenticator>;
  /** Every command's spec, in help order (src/cli/commands.ts): what shell completion is generated from. */
  commands: readonly CommandSpec[];
  /** Asks on stderr, reads stdin; when `terminal.interactive` is false every question is a usage error. */
  prompter(): Promise<Prompter>;
  /** Release sockets and servers; called once by the top level. */
  dispose(): Promise<void>;
}

export type CommandRun = (options: Record<string, unknown>, ctx: Context) => Promise<number>;
