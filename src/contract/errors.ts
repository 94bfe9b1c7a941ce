import { redactCredentials, redactText } from './redact.js';

/**
 * The one error hierarchy. Every expected failure is one of these; the top level prints
 * `error: <message>` (and the hint) and exits with `exitCode`. Anything else is a bug (exit 1).
 */
export abstract class TextgenError extends Error {
  abstract readonly exitCode: number;
  readonly hint: string | undefined;

  constructor(message: string, options: { hint?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.hint = options.hint;
  }
}

/** Bad flag, bad JSON, failed validation, unsupported parameter, missing input without a terminal. */
export class UsageError extends TextgenError {
  readonly exitCode = 2;
}

/** 401/403, failed token exchange, missing credentials. */
export class AuthError extends TextgenError {
  readonly exitCode = 3;
  readonly status: number | undefined;
  readonly traceId: string | undefined;
  constructor(message: string, options: { hint?: string; cause?: unknown; status?: number; traceId?: string } = {}) {
    super(message, options);
    this.status = options.status;
    this.traceId = options.traceId;
  }
}

export interface ApiErrorDetails {
  provider: string;
  status: number;
  code?: string | undefined;
  message: string;
  traceId?: string | undefined;
  /** What the service calls its trace id ("apim-request-id", "x-request-id"); default "trace". */
  traceLabel?: string | undefined;
  /** What to do about it, when the provider's code says (e.g. an unknown model: list the models). */
  hint?: string | undefined;
}

/** The service answered with an error (after retries). */
export class ApiError extends TextgenError {
  readonly exitCode = 4;
  readonly provider: string;
  readonly status: number;
  readonly code: string | undefined;
  readonly traceId: string | undefined;

  constructor(details: ApiErrorDetails, options: { hint?: string; cause?: unknown } = {}) {
    super(formatApiMessage(details), options);
    this.provider = details.provider;
    this.status = details.status;
    this.code = details.code;
    this.traceId = details.traceId;
  }
}

export function formatApiMessage(d: ApiErrorDetails): string {
  const code = d.code ? ` ${d.code}` : '';
  const trace = d.traceId ? ` (${d.traceLabel ?? 'trace'} ${d.traceId})` : '';
  return `${d.provider} returned HTTP ${d.status}${code}: ${d.message}${trace}`;
}

/** Who sent an answer and what it was, for an UnexpectedAnswer: what the adapter that read it could not know. */
export interface AnswerContext {
  provider: string;
  status: number;
  /** The body as it came; a short excerpt goes into the message. */
  body?: string;
  /** Which of several requests, e.g. " to request 2 of 3". */
  where?: string;
  /** The profile's secrets, masked in the excerpt (what looks like a credential is masked anyway). */
  secrets?: readonly string[];
}

/** Characters of a body quoted in an UnexpectedAnswer. */
const EXCERPT_CHARS = 120;

/**
 * The start of a body on one line: whitespace runs collapsed, cut at EXCERPT_CHARS. Secrets never: the known ones
 * and whatever looks like a credential (a server that echoes the request quotes its `api-key` header) are masked.
 */
export function answerExcerpt(body: string, secrets: readonly string[] = []): string {
  const t = redactText(redactCredentials(body), secrets).trim().replace(/\s+/g, ' ');
  if (t === '') return '(empty body)';
  return t.length > EXCERPT_CHARS ? `${t.slice(0, EXCERPT_CHARS)}…` : t;
}

/**
 * A 2xx answer that is not what the protocol promises (exit 4), whichever provider sent it: not JSON, or JSON
 * without the fields the command needs. Adapters throw it with what is wrong (`no "results" array`); the code that
 * sent the request adds who answered and an excerpt of what came (`in`), so the one line names all three.
 */
export class UnexpectedAnswer extends TextgenError {
  readonly exitCode = 4;
  /** What is wrong with the answer, in the adapter's words. */
  readonly problem: string;
  readonly provider: string | undefined;
  readonly status: number | undefined;

  constructor(problem: string, context?: AnswerContext) {
    super(context === undefined ? `unexpected answer: ${problem}` : unexpectedMessage(problem, context));
    this.problem = problem;
    this.provider = context?.provider;
    this.status = context?.status;
  }

  /** This error with its context; one that has a context already keeps it. */
  in(context: AnswerContext): UnexpectedAnswer {
    return this.provider === undefined ? new UnexpectedAnswer(this.problem, context) : this;
  }
}

function unexpectedMessage(problem: string, c: AnswerContext): string {
  const got = c.body === undefined ? '' : ` — got: ${answerExcerpt(c.body, c.secrets)}`;
  return `${c.provider} returned HTTP ${c.status}: unexpected answer${c.where ?? ''}: ${problem}${got}`;
}

/** `e` with the answer's context when it is an UnexpectedAnswer; anything else unchanged (for `throw inAnswer(…)`). */
export function inAnswer(e: unknown, context: AnswerContext): unknown {
  return e instanceof UnexpectedAnswer ? e.in(context) : e;
}

/**
 * The service answered, but not with what was asked for (exit 4, as for an error answer): a structured answer that
 * does not match its schema after every retry, a conversation that still calls tools after its last round.
 */
export class AnswerRejected extends TextgenError {
  readonly exitCode = 4;
}

/** Cannot connect, DNS, TLS, timeout. */
export class NetworkError extends TextgenError {
  readonly exitCode = 5;
}

/** Generation broke off mid-stream; the partial output has been written. */
export class StreamError extends TextgenError {
  readonly exitCode = 6;
}

/** The output cannot be written: stdout on a full disk, stdout closed before the command ran. */
export class OutputError extends TextgenError {
  readonly exitCode = 7;
}

/** Ctrl-C. */
export class Interrupted extends TextgenError {
  readonly exitCode = 130;
  constructor(message = 'interrupted') {
    super(message);
  }
}

export function isTextgenError(e: unknown): e is TextgenError {
  return e instanceof TextgenError;
}
