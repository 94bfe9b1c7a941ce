import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/run-cli.js';
import { useServer } from '../helpers/server-fixture.js';
import { anyGenerationRequests } from '../helpers/wire.js';
import { TINY_PNG, TINY_PNG_BASE64 } from '../helpers/aleph-alpha-task-fixtures.js';

const fixture = useServer();
const { home } = fixture;

beforeAll(() => {
  writeFileSync(join(home.dir, 'pixel.png'), TINY_PNG);
  writeFileSync(
    join(home.dir, 'items.json'),
    JSON.stringify([
      { type: 'text', data: 'Describe:' },
      { type: 'image', data: TINY_PNG_BASE64 },
    ]),
  );
});

const complete = (provider: string, args: string[]) =>
  runInProcess(
    [
      '--provider',
      provider,
      '--url',
      fixture.server.url,
      'complete',
      '-m',
      'luminous-base',
      '--max-tokens',
      '5',
      ...args,
    ],
    { env: home.env, cwd: home.dir },
  );

const sentPrompt = () => (anyGenerationRequests(fixture.server.requests)[0]?.json as { prompt: unknown }).prompt;

describe('complete with an Aleph Alpha multimodal prompt', () => {
  it('--image puts the picture before the text', async () => {
    const r = await complete('aleph-alpha', ['What is in this picture?', '--image', '@pixel.png']);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(sentPrompt()).toStrictEqual([
      { type: 'image', data: TINY_PNG_BASE64 },
      { type: 'text', data: 'What is in this picture?' },
    ]);
  });

  it('--prompt-json is the whole prompt, no words needed', async () => {
    const r = await complete('aleph-alpha', ['--prompt-json', '@items.json']);
    expect(r.exitCode).toBe(0);
    expect(sentPrompt()).toStrictEqual([
      { type: 'text', data: 'Describe:' },
      { type: 'image', data: TINY_PNG_BASE64 },
    ]);
  });

  it.each([
    [
      'another provider',
      'open-inference',
      ['Hi', '--image', '@pixel.png'],
      /--image and --prompt-json build Aleph Alpha prompts/,
    ],
    ['a file that is not an image', 'aleph-alpha', ['Hi', '--image', '@items.json'], /--image/],
    ['a missing image', 'aleph-alpha', ['Hi', '--image', '@nope.png'], /nope\.png/],
  ])('%s is a usage error, nothing sent', async (_n, provider, args, message) => {
    const r = await complete(provider, args);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(fixture.server.requests).toHaveLength(0);
  });
});

describe('embed with an Aleph Alpha multimodal prompt', () => {
  const embed = (provider: string, args: string[]) =>
    runInProcess(['--provider', provider, '--url', fixture.server.url, 'embed', '-m', 'luminous-base', ...args], {
      env: home.env,
      cwd: home.dir,
    });
  const sent = (path: string) => fixture.server.requests.find((r) => r.path === path)?.json as { prompt: unknown };

  it('/embed gets the image and the text as one prompt', async () => {
    const r = await embed('aleph-alpha', ['a picture of', '--image', '@pixel.png', '-o', 'json']);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(sent('/embed').prompt).toStrictEqual([
      { type: 'image', data: TINY_PNG_BASE64 },
      { type: 'text', data: 'a picture of' },
    ]);
    expect(JSON.parse(r.stdout).embeddings).toHaveLength(1);
  });

  it('/semantic_embed takes --prompt-json', async () => {
    const r = await embed('aleph-alpha', ['--prompt-json', '@items.json', '--representation', 'symmetric']);
    expect(r.exitCode).toBe(0);
    expect(sent('/semantic_embed').prompt).toStrictEqual([
      { type: 'text', data: 'Describe:' },
      { type: 'image', data: TINY_PNG_BASE64 },
    ]);
  });

  it('another provider → exit 2, nothing sent', async () => {
    const r = await embed('azure-openai', ['x', '--image', '@pixel.png']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--image and --prompt-json build Aleph Alpha prompts/);
    expect(fixture.server.requests).toHaveLength(0);
  });
});
