/**
 * The `text …` mirrors through the built CLI against serve, beyond IBM's examples (cpdctl-text-examples.test.ts):
 * what they print (the service's body for -o json/yaml, its events for the streaming ones), how they fail (the
 * service's errors, a stream that breaks off keeping its text, serve's fault switches on the routes), and the usage
 * error naming the friendly command on a provider that is not watsonx.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runBin } from '../helpers/run-cli.js';
import { useServer } from '../helpers/server-fixture.js';

const fixture = useServer();
const { home } = fixture;
const MESSAGES = '[{"role": "user", "content": "What is a river?"}]';
const CHAT = 'ibm/granite-3-8b-instruct';

beforeAll(() => {
  mkdirSync(join(home.dir, 'config', 'textgen'), { recursive: true });
  writeFileSync(
    join(home.dir, 'config', 'textgen', 'config.yaml'),
    [
      'profiles:',
      `  wx: { provider: watsonx, url: "${fixture.server.url}", space_id: sp-1 }`,
      `  openai: { provider: openai, url: "${fixture.server.url}/v1" }`,
      `  aa: { provider: aleph-alpha, url: "${fixture.server.url}" }`,
      '',
    ].join('\n'),
  );
});

const textgen = (args: string[]) => runBin(args, { env: home.env });

describe('the text commands', () => {
  it('text generate-stream -o json prints the service events; text output the text they add up to', async () => {
    const args = [
      'text',
      'generate-stream',
      '--model-id',
      'google/flan-t5-xl',
      '--input',
      'Hi',
      '--parameters-max-new-tokens',
      '4',
      '--parameters-decoding-method',
      'greedy',
    ];
    const json = await textgen(['--profile', 'wx', '-o', 'json', ...args]);
    expect(json.exitCode).toBe(0);
    const events = JSON.parse(json.stdout) as Array<{
      results: Array<{ generated_text: string; stop_reason: string }>;
    }>;
    expect(events.length).toBeGreaterThan(1);
    expect(events.at(-1)!.results[0]!.stop_reason).toBe('max_tokens');
    const text = await textgen(['--profile', 'wx', ...args]);
    expect(text.stdout).toBe(`${events.map((e) => e.results[0]!.generated_text).join('')}\n`);
  });

  it('text chat -o yaml prints the service body; -j queries it', async () => {
    const yaml = await textgen([
      '--profile',
      'wx',
      '-o',
      'yaml',
      'text',
      'chat',
      '--model-id',
      CHAT,
      '--messages',
      MESSAGES,
      '--max-tokens',
      '5',
    ]);
    expect(yaml.exitCode).toBe(0);
    expect(yaml.stdout).toMatch(/^id: chat-/m);
    expect(yaml.stdout).toMatch(/^model_id: ibm\/granite-3-8b-instruct$/m);
    const q = await textgen([
      '--profile',
      'wx',
      '-j',
      'choices[0].finish_reason',
      'text',
      'chat',
      '--model-id',
      CHAT,
      '--messages',
      MESSAGES,
      '--max-tokens',
      '3',
    ]);
    expect(q.stdout).toBe('"length"\n');
  });

  it('a chat stream that breaks off keeps its text and is exit 6', async () => {
    fixture.server.faults.push({ kind: 'drop', afterEvents: 3, path: '/ml/v1/text/chat_stream' });
    const r = await textgen([
      '--profile',
      'wx',
      'text',
      'chat-stream',
      '--model-id',
      CHAT,
      '--messages',
      MESSAGES,
      '--max-tokens',
      '30',
    ]);
    expect(r.exitCode).toBe(6);
    expect(r.stdout.length).toBeGreaterThan(0);
    expect(r.stderr).toMatch(/^error: .*broke off/m);
  });

  it("serve's fault switches on the mirrored routes: the service's error, exit 4", async () => {
    for (const [path, args] of [
      [
        '/ml/v1/text/rerank',
        ['text', 'rerank', '--model-id', 'cross-encoder/ms-marco-minilm-l-12-v2', '--query', 'q', '--inputs', '["a"]'],
      ],
      [
        '/ml/v1/text/embeddings',
        ['text', 'calculate-embeddings', '--model-id', 'ibm/slate-30m-english-rtrvr', '--inputs', 'a'],
      ],
    ] as const) {
      fixture.server.faults.push({
        kind: 'status',
        status: 400,
        path,
        body: { errors: [{ code: 'invalid_input_argument', message: 'no' }] },
      });
      const r = await textgen(['--profile', 'wx', ...args]);
      expect(r.exitCode, path).toBe(4);
      expect(r.stdout).toBe('');
    }
  });

  it.each([
    ['openai', ['text', 'generate', '--model-id', 'm', '--input', 'x'], 'complete'],
    ['openai', ['text', 'chat', '--model-id', 'm', '--messages', MESSAGES], 'chat'],
    ['aa', ['text', 'calculate-embeddings', '--model-id', 'm', '--inputs', 'x'], 'embed'],
    ['aa', ['text', 'rerank', '--model-id', 'm', '--query', 'q', '--inputs', '["x"]'], 'rerank'],
    ['aa', ['text', 'tokenize', '--model-id', 'm', '--input', 'x'], 'tokenize'],
  ] as const)('on %s, %j is exit 2 naming %s', async (profile, args, friendly) => {
    const r = await textgen(['--profile', profile, ...args]);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(new RegExp(`^error: text ${args[1]} mirrors cpdctl wx-ai and talks watsonx\\.ai`));
    expect(r.stderr).toContain(`hint: use "textgen ${friendly}"`);
    expect(fixture.server.requests).toHaveLength(0);
  });

  it('bad values are usage errors naming the flag, before anything is sent', async () => {
    const r = await textgen([
      '--profile',
      'wx',
      'text',
      'chat',
      '--model-id',
      CHAT,
      '--messages',
      '[{"role": "robot"}]',
    ]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^error: --messages\[0\]\.role must be/);
    const n = await textgen([
      '--profile',
      'wx',
      'text',
      'chat',
      '--model-id',
      CHAT,
      '--messages',
      MESSAGES,
      '--max-tokens',
      'many',
    ]);
    expect(n.exitCode).toBe(2);
    expect(n.stderr).toMatch(/^error: --max-tokens must be an integer, got "many"/);
    expect(fixture.server.requests).toHaveLength(0);
  });
});
