/**
 * What every hostile case must end in (docs/design.md §5, §7): the expected exit code (never 1), no stack trace,
 * no hang, one `error:` line (plus an optional `hint:` line) on stderr, and nothing on stdout when it fails.
 */
import type { Outcome } from './run.js';

export interface Expectation {
  /** The exit code the case must end with: 2 for bad input, 0 for input that is valid (under --dry-run). */
  code: number;
  /** The error message must match this (without the "error: " label). */
  message?: RegExp;
  /** A config file with several bad fields gets one line per field, each naming the file. */
  configLines?: boolean;
}

/** `harmed`: the CLI wrote over, replaced or chmodded something that is not its own. */
export type Verdict = 'ok' | 'uncaught' | 'wrong-exit-code' | 'bad-message' | 'harmed';

export interface Judgement {
  verdict: Verdict;
  problems: string[];
}

const STACK_LINE = /^\s+at .+/m;
/** Lines that may come before the error: notes and warnings of a run that got as far as the profile. */
const PREAMBLE = /^(note|warning): /;

export function judge(outcome: Outcome, expected: Expectation): Judgement {
  const problems: string[] = [];
  let verdict: Verdict = 'ok';
  const fail = (v: Verdict, problem: string) => {
    problems.push(problem);
    // The worst finding names the case: an escaped exception outranks a wrong code, which outranks wording.
    const rank: Record<Verdict, number> = { ok: 0, 'bad-message': 1, 'wrong-exit-code': 2, uncaught: 3, harmed: 4 };
    if (rank[v] > rank[verdict]) verdict = v;
  };

  if (outcome.hung) fail('uncaught', 'did not end within its time bound (a hang)');
  if (outcome.threw !== undefined)
    fail('uncaught', `main() threw: ${String((outcome.threw as Error)?.stack ?? outcome.threw)}`);
  if (outcome.exitCode === 1) fail('uncaught', 'exit code 1 (an internal error)');
  if (STACK_LINE.test(outcome.stderr) || STACK_LINE.test(outcome.stdout)) fail('uncaught', 'a stack trace was printed');
  if (/internal error/.test(outcome.stderr)) fail('uncaught', 'an internal error was reported');
  // `fail` reassigns verdict inside a closure, which narrowing does not see.
  if ((verdict as Verdict) === 'uncaught') return { verdict, problems };

  if (outcome.exitCode !== expected.code)
    fail('wrong-exit-code', `exit code ${outcome.exitCode}, expected ${expected.code}`);
  if (expected.code === 0 || outcome.exitCode === 0)
    return { verdict, problems: problems.concat(verdict === 'ok' ? [] : [`stderr: ${outcome.stderr.slice(0, 500)}`]) };

  if (expected.code === 2 && outcome.stdout !== '')
    fail('bad-message', `stdout is not empty on a usage error: ${JSON.stringify(outcome.stdout.slice(0, 200))}`);
  const lines = outcome.stderr.replace(/\n$/, '').split('\n');
  while (lines.length > 0 && PREAMBLE.test(lines[0]!)) lines.shift();
  const [first, ...rest] = lines;
  if (first === undefined || !first.startsWith('error: ') || first.length <= 'error: '.length) {
    fail('bad-message', `stderr does not start with an "error:" line: ${JSON.stringify(outcome.stderr.slice(0, 300))}`);
  } else {
    const message = first.slice('error: '.length);
    if (expected.message && !expected.message.test(outcome.stderr.replace(/^(error|hint): /gm, '')))
      fail('bad-message', `message ${JSON.stringify(message.slice(0, 300))} does not match ${expected.message}`);
    // A raw control character from a hostile value would reach the user's terminal.
    if (/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/.test(outcome.stderr))
      fail('bad-message', 'stderr carries raw control characters');
    const file = /^(\S+): /.exec(message)?.[1];
    const extra = rest.filter((line, i) => {
      if (line.startsWith('hint: ') && i === rest.length - 1) return false;
      // commander's suggestion for a mistyped option comes on its own line.
      if (/^\(Did you mean .+\?\)$/.test(line)) return false;
      if (expected.configLines && file !== undefined && line.startsWith(`${file}: `)) return false;
      return true;
    });
    if (extra.length > 0)
      fail('bad-message', `more than one error line: ${JSON.stringify(outcome.stderr.slice(0, 500))}`);
  }
  return { verdict, problems };
}

/** The figures the suite prints: computed from what was run, never typed. */
export class Tally {
  generated = 0;
  handPicked = 0;
  uncaught = 0;
  wrongExitCodes = 0;
  badMessages = 0;
  harmed = 0;
  readonly failures: string[] = [];

  record(kind: 'generated' | 'hand-picked', name: string, judgement: Judgement): void {
    if (kind === 'generated') this.generated++;
    else this.handPicked++;
    if (judgement.verdict === 'uncaught') this.uncaught++;
    if (judgement.verdict === 'wrong-exit-code') this.wrongExitCodes++;
    if (judgement.verdict === 'bad-message') this.badMessages++;
    if (judgement.verdict === 'harmed') this.harmed++;
    if (judgement.verdict !== 'ok' && this.failures.length < 50)
      this.failures.push(`${name}: ${judgement.problems.join('; ')}`);
  }

  line(): string {
    return `hostile: ${this.generated + this.handPicked} cases tried (${this.generated} generated, ${this.handPicked} hand-picked), ${this.uncaught} uncaught, ${this.wrongExitCodes} wrong exit codes, ${this.harmed} files not ours harmed`;
  }
}
