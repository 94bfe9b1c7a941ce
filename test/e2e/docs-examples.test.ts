import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { makeDocx, TINY_PNG } from '../helpers/aleph-alpha-task-fixtures.js';
import { shellExamples, textgenLines, type ShellExample } from '../helpers/markdown-examples.js';
import { BIN, baseEnv, makeHome } from '../helpers/run-cli.js';

/**
 * Every fenced `sh` block of README.md and docs/*.md runs (and the commands of every `console` transcript), as written, with `textgen` being the built CLI, against
 * the built-in `local` profiles, in a fresh directory holding the files the examples read. Each textgen command must
 * exit 0 and every other command succeed. A block the markdown marks `<!-- not run: why -->` is listed, not run.
 *
 * Two things differ from a user's shell, both so the suite can run beside others: port 8080 becomes a free port, and
 * after a `textgen serve … &` the script waits for the server's "listening on" line (a user waits for it by eye).
 */
const ROOT = resolve(import.meta.dirname, '../..');
const docs = readdirSync(join(ROOT, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .sort()
  .map((f) => [join(ROOT, 'docs', f), `docs/${f}`] as const);
const examples: ShellExample[] = [[join(ROOT, 'README.md'), 'README.md'] as const, ...docs].flatMap(([path, shown]) =>
  shellExamples(path, shown),
);
const run = examples.filter((e) => e.notRun === undefined);
const notRun = examples.filter((e) => e.notRun !== undefined);

const home = makeHome();
const bin = mkdtempSync(join(tmpdir(), 'textgen-docs-bin-'));
afterAll(() => {
  home.cleanup();
  rmSync(bin, { recursive: true, force: true });
});

// `textgen` on PATH: the built CLI, logging each command's exit code; `serve` copies its stderr for the wait below.
writeFileSync(
  join(bin, 'textgen'),
  `#!/usr/bin/env bash
if [ "$1" = serve ]; then
  exec node ${JSON.stringify(BIN)} "$@" 2> >(tee -a "$EXAMPLES_LOG.serve" >&2)
fi
node ${JSON.stringify(BIN)} "$@"
rc=$?
printf '%s\\t%s\\n' "$rc" "$*" >> "$EXAMPLES_LOG"
exit $rc
`,
);
chmodSync(join(bin, 'textgen'), 0o755);

const PRELUDE = `set -o pipefail
trap 'printf "%s\\t%s\\n" "$?" "$BASH_COMMAND" >> "$EXAMPLES_LOG.failed"' ERR
trap 'trap - ERR; jobs -p | xargs -r kill 2>/dev/null; wait' EXIT
# Returns once the server started last says it is listening (the event, not a time).
__serve_ready() { timeout 20 grep -q -m1 'listening on' <(tail -n +1 -F "$EXAMPLES_LOG.serve" 2>/dev/null); }
`;

/** The files the examples read, as a user would have them. */
function fixtures(dir: string): void {
  writeFileSync(join(dir, 'prompt.txt'), 'Write a haiku about rivers\n');
  writeFileSync(
    join(dir, 'notes.txt'),
    'Rivers start in the hills, from springs and melting snow, and run to the sea.\n',
  );
  writeFileSync(join(dir, 'report.docx'), makeDocx(['Rivers carry water.', 'Most rivers end in the sea.']));
  writeFileSync(join(dir, 'chart.png'), TINY_PNG);
  writeFileSync(join(dir, 'photo.png'), TINY_PNG);
  writeFileSync(join(dir, 'prompts.jsonl'), '"Tell me about rivers"\n{"input": "And lakes?", "id": "q2"}\n');
  writeFileSync(join(dir, 'texts.jsonl'), '"What is a river?"\n{"input": "And a lake?", "id": "t2"}\n');
  writeFileSync(
    join(dir, 'conversations.jsonl'),
    '{"messages": [{"role": "user", "content": "Name a river."}], "id": "c1"}\n',
  );
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

/** The block with its port made free and a wait after each backgrounded `textgen serve`. */
function asRun(script: string, port: number): string {
  return script
    .replaceAll('8080', String(port))
    .split('\n')
    .map((l) => (/^\s*textgen serve\b.*&\s*$/.test(l) ? `${l}\n__serve_ready` : l))
    .join('\n');
}

function readLog(path: string): string[] {
  try {
    return readFileSync(path, 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

describe('the examples of README.md and docs/ run as written', () => {
  it.each(run.map((e) => [e.where, e] as const))(
    '%s',
    async (_where, example) => {
      const dir = mkdtempSync(join(tmpdir(), 'textgen-docs-'));
      try {
        fixtures(dir);
        const log = join(dir, '.examples.log');
        const script = PRELUDE + asRun(example.script, await freePort());
        const r = await execa('bash', ['-c', script], {
          cwd: dir,
          env: {
            ...baseEnv(),
            ...home.env,
            CI: 'true',
            NO_COLOR: '1',
            EXAMPLES_LOG: log,
            PATH: `${bin}:${process.env.PATH}`,
          },
          extendEnv: false,
          reject: false,
          stdin: 'ignore',
          timeout: 90_000,
        });
        const commands = readLog(log).map((l) => {
          const [code, args] = l.split('\t');
          return { exitCode: Number(code), command: `textgen ${args}` };
        });
        const failures = {
          commands: commands.filter((c) => c.exitCode !== 0),
          others: readLog(`${log}.failed`),
          exitCode: r.exitCode,
          errors: r.stderr
            .split('\n')
            .filter((l) => /^(error|bash|npm error)/.test(l))
            .slice(0, 5),
        };
        if (example.shownErrors) {
          // A transcript: each textgen command exits as its shown output says (an error: non-zero, else 0).
          expect(commands.map((c) => c.exitCode !== 0)).toEqual(example.shownErrors);
          return;
        }
        expect(failures).toEqual({ commands: [], others: [], exitCode: 0, errors: [] });
        // Every textgen line ran (a loop runs its line more than once).
        expect(commands.length).toBeGreaterThanOrEqual(
          textgenLines(example.script).filter((l) => !/serve\b.*&/.test(l)).length,
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );

  it('lists the examples it does not run, each with its reason', () => {
    for (const e of notRun) console.log(`docs examples: not run: ${e.where} (${e.notRun})`);
    console.log(`docs examples: ${run.length} blocks run, ${notRun.length} not run`);
    expect(notRun.every((e) => e.notRun !== '')).toBe(true);
    expect(run.length).toBeGreaterThan(15);
  });
});
