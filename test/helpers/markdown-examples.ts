/**
 * The shell examples of the project's markdown: every fenced `sh` block, with where it is and whether the markdown
 * marks it as one a test cannot run. The mark is an HTML comment on the lines just above the fence, invisible when
 * the page is rendered: `<!-- not run: needs an IBM Cloud account -->`.
 */
import { readFileSync } from 'node:fs';

export interface ShellExample {
  /** "README.md:44": the file and the line of the opening fence. */
  where: string;
  /** The block's text, as written; of a `console` block, its commands (the `$ ` lines and their continuations). */
  script: string;
  /**
   * A `console` block shows what each textgen command printed: whether it shows an error, in the order they run, so
   * a command shown failing may exit non-zero and every other one must exit 0.
   */
  shownErrors?: boolean[];
  /** Why a test does not run it, when the markdown says so. */
  notRun?: string;
}

const NOT_RUN = /^<!--\s*not run:\s*(.*?)\s*-->$/;

export function shellExamples(path: string, shownAs: string): ShellExample[] {
  const lines = readFileSync(path, 'utf8').split('\n');
  const examples: ShellExample[] = [];
  let notRun: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const mark = NOT_RUN.exec(line.trim());
    if (mark) {
      notRun = mark[1];
      continue;
    }
    const fence = /^(`{3,})(\S*)/.exec(line);
    if (!fence) {
      // A mark belongs to the next block only when nothing but blank lines stands between them.
      if (line.trim() !== '') notRun = undefined;
      continue;
    }
    const end = lines.findIndex((l, k) => k > i && l.startsWith(fence[1]!) && l.trim() === fence[1]);
    const close = end === -1 ? lines.length : end;
    const body = lines.slice(i + 1, close);
    const where = `${shownAs}:${i + 1}`;
    if (fence[2] === 'sh') {
      examples.push({ where, script: body.join('\n'), ...(notRun !== undefined ? { notRun } : {}) });
    } else if (fence[2] === 'console') {
      examples.push({ where, ...consoleCommands(body), ...(notRun !== undefined ? { notRun } : {}) });
    }
    notRun = undefined;
    i = close;
  }
  return examples;
}

/** The lines of a script that start a textgen command (after `export`s and pipes from echo/printf/cat). */
export function textgenLines(script: string): string[] {
  return script.split('\n').filter((l) => /(^|\|\s*|;\s*|do\s+)textgen\s/.test(l.trim()));
}

/** The commands of a console transcript, and whether the output after each textgen command shows an error. */
function consoleCommands(body: string[]): { script: string; shownErrors: boolean[] } {
  const commands: string[] = [];
  const shownErrors: boolean[] = [];
  let continued = false;
  for (const line of body) {
    if (continued || line.startsWith('$ ')) {
      const text = continued ? line : line.slice(2);
      if (!continued && /(^|\|\s*)textgen\s/.test(text)) shownErrors.push(false);
      commands.push(text);
      // A trailing backslash, or an open single quote (a multi-line node -e), continues the command.
      continued = /\\$/.test(line) || (commands.join('\n').split("'").length - 1) % 2 === 1;
    } else if (/^error: /.test(line) && shownErrors.length > 0) shownErrors[shownErrors.length - 1] = true;
  }
  return { script: commands.join('\n'), shownErrors };
}
