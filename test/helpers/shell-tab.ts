import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripEscapes } from './pty.js';

/**
 * A user's TAB in a real interactive bash or zsh on a pseudo-terminal (util-linux `script`), with textgen's completion
 * script loaded: the line is typed, TAB pressed, and the shell's own line editor reports the line it then holds —
 * readline's READLINE_LINE through `bind -x`, zle's BUFFER through a widget — so what is checked is exactly what the
 * user would see on the command line, word breaks (COMP_WORDBREAKS) and quoting included.
 */
export type Shell = 'bash' | 'zsh';

export interface TabOptions {
  /** The completion script (`textgen completion SHELL`). */
  script: string;
  cwd: string;
  env: Record<string, string>;
  timeoutMs?: number;
}

const REPORT_KEY = '\u0018\u000c'; // Ctrl-X Ctrl-L: prints the line
const READY = 'TAB-READY> ';

function rcFor(shell: Shell, scriptPath: string): string {
  if (shell === 'bash')
    return `PS1=${JSON.stringify(READY)}
bind 'set bell-style none'
source ${JSON.stringify(scriptPath)}
bind -x '"\\C-x\\C-l": printf "\\nLINE<%s>\\n" "$READLINE_LINE"'
`;
  return `PS1=${JSON.stringify(READY)}
unsetopt beep
source ${JSON.stringify(scriptPath)}
__report_line() { zle -I; print -r -- "LINE<$BUFFER>"; }
zle -N __report_line
bindkey '^X^L' __report_line
`;
}

/** The command line after typing `typed` and pressing TAB `tabs` times. */
export async function lineAfterTab(shell: Shell, typed: string, options: TabOptions, tabs = 1): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), `textgen-tab-${shell}-`));
  try {
    const scriptPath = join(dir, shell === 'bash' ? 'textgen.bash' : '_textgen');
    writeFileSync(scriptPath, options.script);
    const rc = join(dir, shell === 'bash' ? 'bashrc' : '.zshrc');
    writeFileSync(rc, rcFor(shell, scriptPath));
    // No system or user start-up files: only the completion script is loaded.
    const command =
      shell === 'bash' ? `stty cols 200; exec bash --noprofile --rcfile '${rc}' -i` : 'stty cols 200; exec zsh -d -i';
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      cwd: options.cwd,
      env: { ...options.env, TERM: 'dumb', ...(shell === 'zsh' ? { ZDOTDIR: dir } : {}) },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let screen = '';
    let typedYet = false;
    return await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`${shell}: no line after TAB for ${JSON.stringify(typed)}; screen:\n${stripEscapes(screen)}`));
      }, options.timeoutMs ?? 15_000);
      child.stdout.on('data', (b: Buffer) => {
        screen += b.toString('utf8');
        const plain = stripEscapes(screen);
        if (!typedYet && plain.includes(READY)) {
          typedYet = true;
          // The keys queue in the terminal; the line editor takes each in turn, so the report follows the TAB.
          child.stdin.write(`${typed}${'\t'.repeat(tabs)}${REPORT_KEY}`);
        }
        const line = /LINE<([^\n]*)>\r?\n/.exec(plain);
        if (line) {
          clearTimeout(timer);
          child.kill('SIGKILL');
          resolve(line[1]!);
        }
      });
      child.on('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * What fish offers on TAB after `typed`: its completion engine run on the line (`complete -C`), with textgen's
 * script sourced and no user configuration — the candidates its pager shows (descriptions cut off), in its order.
 */
export function fishCandidates(typed: string, options: TabOptions): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'textgen-tab-fish-'));
  const scriptPath = join(dir, 'textgen.fish');
  writeFileSync(scriptPath, options.script);
  return new Promise<string[]>((resolve, reject) => {
    execFile(
      'fish',
      ['--no-config', '-c', 'source $argv[1]; and complete -C $argv[2]', scriptPath, typed],
      { cwd: options.cwd, env: options.env, timeout: options.timeoutMs ?? 15_000 },
      (error, stdout, stderr) => {
        rmSync(dir, { recursive: true, force: true });
        if (error) reject(new Error(`fish: ${error.message}\n${stderr}`));
        else if (stderr !== '') reject(new Error(`fish printed to stderr: ${stderr}`));
        else
          resolve(
            stdout
              .split('\n')
              .filter((l) => l !== '')
              .map((l) => l.split('\t')[0]!),
          );
      },
    );
  });
}
