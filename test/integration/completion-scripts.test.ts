import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeHome, runInProcess } from '../helpers/run-cli.js';

const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

const USER_CONFIG = `
profiles:
  wx-prod:
    provider: watsonx
    url: https://us-south.ml.cloud.ibm.com
    space_id: s1
  aa-team:
    provider: aleph-alpha
    url: https://api.aleph-alpha.com
`;

const home = makeHome();
const scripts: Record<string, string> = {};

beforeAll(async () => {
  mkdirSync(join(home.env.XDG_CONFIG_HOME, 'textgen'), { recursive: true });
  writeFileSync(join(home.env.XDG_CONFIG_HOME, 'textgen', 'config.yaml'), USER_CONFIG);
  mkdirSync(join(home.dir, 'work'));
  writeFileSync(join(home.dir, 'work', 'params.json'), '{}');
  writeFileSync(join(home.dir, 'work', 'prompt.txt'), 'Hi');
  for (const shell of ['bash', 'zsh', 'fish']) {
    const r = await runInProcess(['completion', shell], { env: home.env });
    expect(r.exitCode).toBe(0);
    scripts[shell] = r.stdout;
  }
  // The scripts ask `textgen completion --profiles` at Tab time: answer with what the real command prints.
  const names = await runInProcess(['completion', '--profiles'], { env: home.env, cwd: home.dir });
  writeFileSync(join(home.dir, 'names.txt'), names.stdout);
  writeFileSync(join(home.dir, 'completion.bash'), scripts.bash as string);
}, 60_000);

afterAll(() => home.cleanup());

describe('completion --profiles', () => {
  it('prints configured and built-in profile names, one per line, sorted', async () => {
    const r = await runInProcess(['completion', '--profiles'], { env: home.env, cwd: home.dir });
    expect(r).toEqual({
      exitCode: 0,
      stdout: 'aa-team\nlocal\nlocal-aa\nlocal-azure\nlocal-oip\nlocal-openai\nwx-prod\n',
      stderr: '',
    });
  });

  it('reads the file named by --config', async () => {
    const file = join(home.dir, 'other.yaml');
    writeFileSync(file, 'profiles:\n  only-here: { provider: openai, url: http://127.0.0.1:1 }\n');
    const r = await runInProcess(['--config', file, 'completion', '--profiles'], { env: home.env, cwd: home.dir });
    expect(r.stdout.split('\n')).toContain('only-here');
    expect(r.stdout.split('\n')).not.toContain('wx-prod');
  });

  it.each([
    ['a config file that does not parse', 'profiles: [unclosed\n'],
    ['a config file with an unknown provider', 'profiles:\n  x: { provider: nope }\n'],
  ])('never fails: with %s it prints the built-in names and exits 0', async (_case, content) => {
    const file = join(home.dir, 'broken.yaml');
    writeFileSync(file, content);
    const r = await runInProcess(['--config', file, 'completion', '--profiles'], { env: home.env, cwd: home.dir });
    expect(r).toEqual({ exitCode: 0, stdout: 'local\nlocal-aa\nlocal-azure\nlocal-oip\nlocal-openai\n', stderr: '' });
  });
});

describe('completion SHELL', () => {
  it.each([
    [['completion'], /needs a shell: bash, zsh, fish; got nothing/],
    [['completion', 'tcsh'], /needs a shell: bash, zsh, fish; got "tcsh"/],
    [['completion', 'bash', 'zsh'], /too many arguments for 'completion'/],
  ])('%j is a usage error (exit 2)', async (args, message) => {
    const r = await runInProcess(args, { env: home.env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
  });

  it('is listed in help, but its --profiles helper is not', async () => {
    const r = await runInProcess(['completion', '--help'], { env: home.env });
    expect(r.stdout).toContain('completion [options] [shell]');
    expect(r.stdout).not.toContain('--profiles');
  });
});

describe('generated scripts are valid', () => {
  it('bash -n accepts the bash script', () => {
    execFileSync('bash', ['-n', join(home.dir, 'completion.bash')]);
  });

  it.skipIf(!has('zsh'))('zsh -n accepts the zsh script', () => {
    writeFileSync(join(home.dir, '_textgen'), scripts.zsh as string);
    execFileSync('zsh', ['-n', join(home.dir, '_textgen')]);
  });

  it.skipIf(!has('fish'))('fish --no-execute accepts the fish script', () => {
    writeFileSync(join(home.dir, 'textgen.fish'), scripts.fish as string);
    execFileSync('fish', ['--no-execute', join(home.dir, 'textgen.fish')]);
  });

  it("the zsh script runs the bash script's walk with zsh's own compadd and _files (no bashcompinit)", () => {
    expect(scripts.zsh).toMatch(/^#compdef textgen\n/);
    expect(scripts.zsh).not.toContain('bashcompinit');
    expect(scripts.zsh).toContain('_textgen_walk() {');
    expect(scripts.zsh).toContain('compadd -- ');
  });

  it.each([
    ["-n '__textgen_path_is' -a 'deployment'"],
    ["-n '__textgen_path_is deployment' -a 'text-generate'"],
    ["-n '__textgen_path_is deployment text-generate' -l parameters-top-k -x"],
    ["-n '__textgen_path_is completion' -a 'bash zsh fish'"],
    ["complete -c textgen -l profile -x -a '(__textgen_profiles)'"],
    ['    textgen $config completion --profiles 2>/dev/null'],
    ["complete -c textgen -s o -l output -x -a 'text json jsonl yaml'"],
    ["complete -c textgen -l provider -x -a 'watsonx azure-openai openai aleph-alpha open-inference'"],
    ['complete -c textgen -l config -r -F'],
    ["-n '__textgen_path_is tokenize' -l input-file -r -F"],
  ])('the fish script has %s', (line) => {
    expect(scripts.fish).toContain(line);
  });
});

/** Runs the bash completion function for a command line; the cursor is at the end of the last word. */
function complete(words: string[]): { reply: string[]; calls: string[] } {
  const log = join(home.dir, 'calls.log');
  writeFileSync(log, '');
  const program = `
    textgen() { printf '%s\\n' "$*" >> ${JSON.stringify(log)}; cat ${JSON.stringify(join(home.dir, 'names.txt'))}; }
    source ${JSON.stringify(join(home.dir, 'completion.bash'))}
    COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')})
    COMP_CWORD=${words.length - 1}
    _textgen
    printf '%s\\n' "\${COMPREPLY[@]}"
  `;
  const out = execFileSync('bash', ['-c', program], { cwd: join(home.dir, 'work'), encoding: 'utf8' });
  const calls = execFileSync('cat', [log], { encoding: 'utf8' });
  return { reply: out.split('\n').filter((l) => l !== ''), calls: calls.split('\n').filter((l) => l !== '') };
}

describe('bash completion completes', () => {
  it.each([
    ['top-level commands', ['textgen', ''], ['complete', 'completion', 'deployment', 'tokenize', 'health']],
    ['a command from its prefix', ['textgen', 'compl'], ['complete', 'completion']],
    ['a nested command', ['textgen', 'deployment', 'text-gen'], ['text-generate', 'text-generate-stream']],
    [
      'nested commands after global flags',
      ['textgen', '--profile', 'local', '-o', 'json', 'deployment', ''],
      ['text-generate', 'text-generate-stream'],
    ],
    [
      "a command's own flags",
      ['textgen', 'deployment', 'text-generate', '--parameters-top'],
      ['--parameters-top-k', '--parameters-top-p'],
    ],
    ['global flags after a command', ['textgen', 'tokenize', '--pro'], ['--profile', '--provider']],
    ['--version only at the top', ['textgen', '--vers'], ['--version']],
    ['--output values', ['textgen', 'models', '-o', 'j'], ['json', 'jsonl']],
    ['--output values after "="', ['textgen', 'models', '--output', '=', 'ya'], ['yaml']],
    ['--provider values', ['textgen', '--provider', 'a'], ['azure-openai', 'aleph-alpha']],
    ['completion shells', ['textgen', 'completion', ''], ['bash', 'zsh', 'fish']],
    ['files for --input-file', ['textgen', 'complete', '--input-file', 'pr'], ['prompt.txt']],
    ['files for --config', ['textgen', '--config', 'par'], ['params.json']],
    ['files after @', ['textgen', 'deployment', 'text-generate', '--parameters', '@par'], ['@params.json']],
    // bash splits "@par" at COMP_WORDBREAKS; readline still replaces from the "@", so the candidates keep it.
    [
      'files after @, split off',
      ['textgen', 'deployment', 'text-generate', '--parameters', '@', 'par'],
      ['@params.json'],
    ],
    [
      '--parameters-decoding-method values',
      ['textgen', 'deployment', 'text-generate', '--parameters-decoding-method', ''],
      ['greedy', 'sample'],
    ],
  ])('%s', (_case, words, expected) => {
    const { reply } = complete(words);
    for (const word of expected) expect(reply).toContain(word);
  });

  it('profile names from the config in HOME for --profile', () => {
    const { reply, calls } = complete(['textgen', '--profile', '']);
    expect(reply.sort()).toEqual([
      'aa-team',
      'local',
      'local-aa',
      'local-azure',
      'local-oip',
      'local-openai',
      'wx-prod',
    ]);
    expect(calls).toEqual(['completion --profiles']);
  });

  it('profile names filtered by the typed prefix, after a command', () => {
    expect(complete(['textgen', 'health', '--profile', 'wx']).reply).toEqual(['wx-prod']);
  });

  it('asks the --config file typed on the line for profile names', () => {
    const { calls } = complete(['textgen', '--config', 'team.yaml', 'health', '--profile', '']);
    expect(calls).toEqual(['--config team.yaml completion --profiles']);
  });

  it('does not offer flags of other commands', () => {
    const { reply } = complete(['textgen', 'tokenize', '--']);
    expect(reply).toContain('--tokens');
    expect(reply).not.toContain('--id-or-name');
    expect(reply).not.toContain('--version');
  });

  it('does not take a value as a command word', () => {
    // "health" here is the value of --input, not the health command.
    const { reply } = complete(['textgen', 'deployment', 'text-generate', '--input', 'health', '--']);
    expect(reply).toContain('--id-or-name');
  });
});
