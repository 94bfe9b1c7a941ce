/**
 * The llama engine through the built CLI, as a user runs it: a profile of each local flavour (one per protocol)
 * with `engine: llama` and the tiny successor model the test writes, every command that has a route on that
 * protocol, and the ways a model file or the engine itself can be missing. Each command starts the embedded server
 * in-process and loads the model (about half a second here).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineAvailable, successorModelDir } from '../helpers/llama-engine.js';
import { makeHome, runBin } from '../helpers/run-cli.js';

const available = engineAvailable();
const ALPHABET = 'bcdefghijklmnopqrstuvwxyz';

const FLAVOURS = [
  { profile: 'l-wx', provider: 'watsonx', tokenize: true, chat: true, embed: true },
  { profile: 'l-openai', provider: 'openai', tokenize: false, chat: true, embed: true },
  { profile: 'l-azure', provider: 'azure-openai', tokenize: false, chat: true, embed: true },
  { profile: 'l-aa', provider: 'aleph-alpha', tokenize: true, chat: true, embed: true },
  { profile: 'l-oip', provider: 'open-inference', tokenize: false, chat: false, embed: false },
] as const;

describe.skipIf(!available)('the llama engine through the CLI', () => {
  let home: ReturnType<typeof makeHome>;
  let model: ReturnType<typeof successorModelDir>;
  const cli = (args: string[]) => runBin(args, { env: home.env, timeout: 60_000 });

  beforeAll(() => {
    home = makeHome();
    model = successorModelDir();
    const profiles = FLAVOURS.map(
      (f) =>
        `  ${f.profile}:\n    provider: ${f.provider}\n    engine: llama\n    model_path: ${model.path}\n` +
        `    threads: 1\n    context_size: 256\n    gpu: 'off'\n${f.provider === 'aleph-alpha' ? '    chat: true\n' : ''}`,
    );
    mkdirSync(join(home.dir, 'config', 'textgen'), { recursive: true });
    writeFileSync(join(home.dir, 'config', 'textgen', 'config.yaml'), `profiles:\n${profiles.join('')}`);
  });
  afterAll(() => {
    home?.cleanup();
    model?.cleanup();
  });

  describe.each(FLAVOURS)('$profile ($provider)', (f) => {
    it('complete, whole and streamed: the exact continuation', async () => {
      for (const stream of ['--no-stream', '--stream']) {
        const r = await cli(['--profile', f.profile, 'complete', 'a', '--greedy', '--max-tokens', '40', stream]);
        expect(r.stderr).toBe('');
        expect(r.stdout.trim()).toBe(ALPHABET);
        expect(r.exitCode).toBe(0);
      }
    });

    it('complete -o json: the stop reason and the token count of the model tokenizer', async () => {
      const r = await cli(['--profile', f.profile, 'complete', 'a', '--greedy', '--max-tokens', '5', '-o', 'json']);
      expect(r.exitCode).toBe(0);
      const json = JSON.parse(r.stdout);
      expect(json.results?.[0] ?? json).toMatchObject({ generated_text: 'bcdef', generated_token_count: 5 });
    });

    it('models lists the served model', async () => {
      const r = await cli(['--profile', f.profile, 'models']);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toMatch(/^successor\b/m);
    });

    it.runIf(f.tokenize)('tokenize counts with the model vocabulary', async () => {
      const r = await cli(['--profile', f.profile, 'tokenize', 'hello world abc']);
      expect(r).toMatchObject({ exitCode: 0, stdout: '5\n' });
    });

    it.runIf(f.chat)('chat answers through the chat template', async () => {
      const r = await cli(['--profile', f.profile, 'chat', '--message', 'user=a', '--max-tokens', '5', '-t', '0']);
      expect(r.exitCode).toBe(0);
      expect(r.stdout.trim().length).toBeGreaterThan(0);
    });

    it.runIf(f.embed)('embed gives the model vector', async () => {
      const r = await cli(['--profile', f.profile, 'embed', 'hello', '-o', 'json']);
      expect(r.exitCode).toBe(0);
      expect(JSON.parse(r.stdout).dimensions).toBe(64);
    });
  });

  it('deployment text-generate and text-generate-stream by the served name', async () => {
    for (const command of ['text-generate', 'text-generate-stream']) {
      const r = await cli([
        '--profile',
        'l-wx',
        'deployment',
        command,
        '--id-or-name',
        'successor',
        '--input',
        'a',
        '--parameters-decoding-method',
        'greedy',
        '--parameters-max-new-tokens',
        '40',
      ]);
      expect(r.exitCode).toBe(0);
      expect(r.stdout.trim()).toBe(ALPHABET);
    }
  });

  it('detokenize decodes with the model vocabulary (Aleph Alpha has the route)', async () => {
    const r = await cli(['--profile', 'l-aa', 'detokenize', '357,361,328,261,262']);
    expect(r).toMatchObject({ exitCode: 0 });
    expect(r.stdout.trim()).toBe('hello world abc');
  });

  it.each([
    ['missing', () => join(model.dir, 'nope.gguf'), /no such file/],
    ['not GGUF', () => writeAt(join(model.dir, 'text.gguf'), Buffer.from('hello, not a model\n')), /not a GGUF/],
    [
      'truncated in its tensor data',
      () => writeAt(join(model.dir, 'cut.gguf'), readModel(model.path).subarray(0, 200_000)),
      /truncated/,
    ],
    [
      'truncated in its metadata',
      () => writeAt(join(model.dir, 'cut2.gguf'), readModel(model.path).subarray(0, 3_000)),
      /truncated/,
    ],
  ])('serve --model with a model file that is %s: one line, exit 2', async (_, file, message) => {
    const r = await cli(['serve', '--port', '0', '--engine', 'llama', '--model', file(), '--threads', '1']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stdout).toBe('');
  });

  it('a profile with engine: llama and a missing model file: exit 2', async () => {
    const r = await cli(['--profile', 'l-wx', '--config', writeConfig(home.dir), 'complete', 'a']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/no such file/);
  });
});

function writeAt(path: string, bytes: Buffer): string {
  writeFileSync(path, bytes);
  return path;
}

function readModel(path: string): Buffer {
  return readFileSync(path);
}

function writeConfig(dir: string): string {
  const path = join(dir, 'missing-model.yaml');
  writeFileSync(
    path,
    "profiles:\n  l-wx:\n    provider: watsonx\n    engine: llama\n    model_path: ./absent.gguf\n    gpu: 'off'\n",
  );
  return path;
}
