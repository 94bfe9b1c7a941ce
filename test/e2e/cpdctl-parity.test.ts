/**
 * The parity test: every mirrored cpdctl command, as IBM's command reference (2026-02-26) gives it, written into
 * test/contract/cpdctl/<command words>.json (options with their cpdctl types and required marks, and the groups
 * whose first option excludes each of the others). Through the built CLI, for each file:
 *   - `textgen <command> --help` lists every option;
 *   - each exclusive pair given together is exit 2, nothing on stdout, and one `error:` line naming both;
 *   - a required option left out is exit 2 naming it (CI=true and stdin closed: nothing is asked).
 * The runs use --dry-run on the built-in local profile, so a pair that slipped through would print a request and
 * exit 0, and fail here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeHome, runBin } from '../helpers/run-cli.js';

interface ParityOption {
  name: string;
  type: string;
  required?: boolean;
}
interface ParityFile {
  command: string[];
  source: string;
  options: ParityOption[];
  exclusive: string[][];
}

const DIR = join(import.meta.dirname, '../contract/cpdctl');
const FILES = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => ({ file: f, data: JSON.parse(readFileSync(join(DIR, f), 'utf8')) as ParityFile }));

const home = makeHome();
afterAll(() => home.cleanup());

const UUID = '3fc54cf1-252f-424b-b52d-5cdd9814987f';
/** A value each option takes without complaint, so that only what a test is about can fail. */
const BY_NAME: Record<string, string> = {
  '--model-id': 'ibm/granite-3-8b-instruct',
  '--input': 'Hello',
  '--id-or-name': 'demo',
  '--query': 'rivers',
  '--messages': '[{"role": "user", "content": "Hi"}]',
  '--space-id': UUID,
  '--project-id': '12ac4cf1-252f-424b-b52d-5cdd9814987f',
  '--space': 'a-space',
  '--project': 'a-project',
  '--cpd-scope': `cpd:///spaces/${UUID}`,
  '--parameters-decoding-method': 'greedy',
  '--response-format-type': 'json_object',
  '--tool-choice-type': 'function',
  '--tool-choice-function': '{"name": "f"}',
  '--tool-choice-option': 'auto',
  '--schema-freq': '1h',
  '--schema-timestamp-column': 'date',
};
const BY_TYPE: Record<string, string> = {
  string: 'x',
  bool: 'true',
  int64: '1',
  float64: '1',
  'generic map': '{}',
  'RerankInput[]': '[{"text": "a"}]',
};

/**
 * Options a command line needs beyond the reference's required ones to get as far as the check a test is about (a
 * forecast needs a timestamp column, from --schema or its twin): added unless the pair under test is in their group.
 */
const CONTEXT: Record<string, readonly string[]> = {
  'time-series forecast': ['--schema-timestamp-column'],
};

function contextFor(file: ParityFile, pair: readonly string[]): string[] {
  const touched = file.exclusive.filter((group) => group.some((n) => pair.includes(n))).flat();
  return (CONTEXT[file.command.join(' ')] ?? []).filter((n) => !touched.includes(n) && !pair.includes(n));
}

function sampleValue(option: ParityOption): string {
  return BY_NAME[option.name] ?? BY_TYPE[option.type] ?? (option.type.endsWith('[]') ? '[]' : '{}');
}

function args(file: ParityFile, names: readonly string[]): string[] {
  const out: string[] = [];
  for (const name of names) {
    const option = file.options.find((o) => o.name === name);
    if (!option) throw new Error(`${name} is not an option of ${file.command.join(' ')}`);
    // A bool is written --flag=true, as cpdctl's examples write --logprobs=false.
    out.push(option.type === 'bool' ? `${name}=true` : name, ...(option.type === 'bool' ? [] : [sampleValue(option)]));
  }
  return out;
}

const run = (words: string[]) => runBin(['--profile', 'local', '--dry-run', ...words], { env: home.env });

/** A few runs at a time: each is a process start. */
async function inTurns<T>(items: readonly T[], each: (item: T) => Promise<void>, width = 4): Promise<void> {
  for (let i = 0; i < items.length; i += width) await Promise.all(items.slice(i, i + width).map(each));
}

it('has a parity file for every mirrored command it knows of', () => {
  const names = FILES.map((f) => f.file);
  for (const expected of [
    'text-generate.json',
    'text-generate-stream.json',
    'text-chat.json',
    'text-chat-stream.json',
    'text-calculate-embeddings.json',
    'text-rerank.json',
    'text-tokenize.json',
    'deployment-text-generate.json',
    'deployment-text-generate-stream.json',
  ])
    expect(names).toContain(expected);
});

describe.each(FILES)('$file', ({ data }) => {
  const required = data.options.filter((o) => o.required === true).map((o) => o.name);

  it('--help lists every option', async () => {
    const r = await runBin([...data.command, '--help'], { env: home.env });
    expect(r.exitCode).toBe(0);
    const missing = data.options
      .map((o) => o.name)
      .filter((name) => !new RegExp(`(^|[\\s,])${name}([\\s,=<[]|$)`, 'm').test(r.stdout));
    expect(missing, `${data.command.join(' ')} --help lacks`).toEqual([]);
  });

  const pairs = data.exclusive.flatMap(([first, ...rest]) => rest.map((other) => [first!, other] as const));
  it.runIf(pairs.length > 0)(`each exclusive pair is exit 2 naming both (${pairs.length} pairs)`, async () => {
    await inTurns(pairs, async ([a, b]) => {
      const others = [...required.filter((n) => n !== a && n !== b), ...contextFor(data, [a, b])];
      const r = await run([...data.command, ...args(data, [...others, a, b])]);
      const first = r.stderr.split('\n')[0] ?? '';
      expect({ pair: `${a} ${b}`, exit: r.exitCode, stdout: r.stdout }).toEqual({
        pair: `${a} ${b}`,
        exit: 2,
        stdout: '',
      });
      expect(first, `${a} with ${b}`).toMatch(/^error: /);
      expect(first, `${a} with ${b}`).toContain(a);
      expect(first, `${a} with ${b}`).toContain(b);
    });
  });

  it.runIf(required.length > 0)('a required option left out is exit 2 naming it', async () => {
    await inTurns(required, async (name) => {
      const r = await run([
        ...data.command,
        ...args(
          data,
          required.filter((n) => n !== name),
        ),
      ]);
      expect({ left: name, exit: r.exitCode, stdout: r.stdout }).toEqual({ left: name, exit: 2, stdout: '' });
      expect(r.stderr.split('\n')[0], `without ${name}`).toMatch(new RegExp(`^error: .*${name}(\\W|$)`));
    });
  });
});
