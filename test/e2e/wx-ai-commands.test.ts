import { describe, expect, it } from 'vitest';
import { useServer } from '../helpers/server-fixture.js';
import { runBin } from '../helpers/run-cli.js';

/**
 * The wx-ai mirror commands as a user meets them (issue 25): tables for text output, the service's body for -o json,
 * and every bad input one `error:` line with exit 2 before anything is sent.
 */
const t = useServer();
const SPACE = '63dc4cf1-252f-424b-b52d-5cdd9814987f';

function bin(args: string[]) {
  return runBin(['--provider', 'watsonx', '--url', t.server.url, '--token', 't', ...args], { env: t.home.env });
}

describe('text output', () => {
  it("deployment list is a table with the service's fields; --space NAME is looked up first", async () => {
    const r = await bin(['deployment', 'list', '--space', 'examples']);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+SERVING NAME\s+TYPE\s+STATE\s+BASE MODEL\s+PROMPT TEMPLATE$/);
    expect(lines.some((l) => /^assistant\s+assistant\s+assistant_serving\s+foundation_model\s+ready/.test(l))).toBe(
      true,
    );
    const listed = t.server.requests.find((q) => q.path === '/ml/v4/deployments');
    expect(listed?.query.space_id).toBe(SPACE);
  });

  it("deployment get is key-value lines; -o json -j reads the service's body", async () => {
    const text = await bin(['deployment', 'get', '--deployment-id', 'assistant', '--space-id', SPACE]);
    expect(text.stdout).toMatch(/^id\s+assistant$/m);
    expect(text.stdout).toMatch(/^prompt template\s+prompt-template-assistant$/m);
    const json = await bin([
      'deployment',
      'get',
      '--deployment-id',
      'assistant',
      '--space-id',
      SPACE,
      '-o',
      'json',
      '-j',
      'entity.prompt_template.id',
      '--raw-output',
    ]);
    expect(json.stdout).toBe('prompt-template-assistant\n');
  });

  it('deployment list --conflict says whether the serving name is free (and a taken one is the 409, exit 4)', async () => {
    const free = await bin(['deployment', 'list', '--space-id', SPACE, '--serving-name', 'fresh', '--conflict']);
    expect(free.exitCode).toBe(0);
    expect(free.stdout).toBe('the serving name is available\n');
    const taken = await bin([
      'deployment',
      'list',
      '--space-id',
      SPACE,
      '--serving-name',
      'demo_serving',
      '--conflict',
    ]);
    expect(taken.exitCode).toBe(4);
    expect(taken.stderr).toContain('HTTP 409 deployment_serving_name_not_unique');
  });

  it('foundation-model list-models --all-pages gathers every page into one answer', async () => {
    const one = await bin(['foundation-model', 'list-models', '--limit', '5', '-o', 'json']);
    const all = await bin(['foundation-model', 'list-models', '--limit', '5', '--all-pages', '-o', 'json']);
    const first = JSON.parse(one.stdout);
    const every = JSON.parse(all.stdout);
    expect(first.resources).toHaveLength(5);
    expect(first.next).toBeDefined();
    expect(every.resources).toHaveLength(first.total_count);
    expect(every.next).toBeUndefined();
  });

  it("deployment chat prints the answer's text; chat-stream -o jsonl one service event a line", async () => {
    const messages = '[{"role": "user", "content": "Hello"}]';
    const text = await bin(['deployment', 'chat', '--id-or-name', 'assistant', '--messages', messages]);
    expect(text.exitCode).toBe(0);
    expect(text.stdout.trim().length).toBeGreaterThan(0);
    expect(text.stdout.startsWith('{')).toBe(false);
    const lines = await bin([
      'deployment',
      'chat-stream',
      '--id-or-name',
      'assistant',
      '--messages',
      messages,
      '-o',
      'jsonl',
    ]);
    const events = lines.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(events.length).toBeGreaterThan(2);
    expect(events.every((e) => Array.isArray(e.choices))).toBe(true);
  });
});

describe('bad input: one error line, exit 2, nothing sent', () => {
  it.each([
    [['deployment', 'get'], '--deployment-id is required'],
    [
      ['deployment', 'list', '--space-id', SPACE, '--state', 'sleeping'],
      '--state must be one of initializing, updating, ready, failed',
    ],
    [['deployment', 'list', '--space-id', SPACE, '--conflict=maybe'], '--conflict must be true or false'],
    [['foundation-model', 'list-models', '--limit', '500'], '--limit must be'],
    [['foundation-model', 'list-tasks', '--all-pages=perhaps'], '--all-pages must be true or false'],
    [['deployment', 'chat', '--id-or-name', 'assistant'], '--messages is required'],
    [
      ['deployment', 'chat', '--id-or-name', 'assistant', '--messages', '{"role": "user"}'],
      '--messages must be a JSON array',
    ],
    [
      ['deployment', 'chat', '--id-or-name', 'assistant', '--messages', '[{"role":"system","content":"x"}]'],
      '--messages[0]: a deployment chat cannot take a system message',
    ],
    [
      ['deployment', 'chat', '--id-or-name', 'assistant', '--messages', '[{"role":"user"'],
      '--messages: invalid JSON at line 1',
    ],
    [
      ['time-series', 'forecast', '--data', '{}', '--schema-timestamp-column', 'd', '--space-id', SPACE],
      '--model-id is required',
    ],
    [['time-series', 'forecast', '--model-id', 'm', '--schema-timestamp-column', 'd'], '--data is required'],
    [
      ['time-series', 'forecast', '--model-id', 'm', '--data', '[1]', '--schema-timestamp-column', 'd'],
      '--data must be a JSON object',
    ],
    [['time-series', 'forecast', '--model-id', 'm', '--data', '{}'], 'the schema needs its timestamp column'],
    [
      [
        'time-series',
        'forecast',
        '--model-id',
        'm',
        '--data',
        '{}',
        '--schema',
        '{"timestamp_column":"d"}',
        '--schema-freq',
        '1h',
      ],
      '--schema and --schema-freq cannot be used together',
    ],
    [
      [
        'time-series',
        'forecast',
        '--model-id',
        'm',
        '--data',
        '{}',
        '--schema-timestamp-column',
        'd',
        '--parameters',
        '{}',
        '--parameters-prediction-length',
        '3',
      ],
      '--parameters and --parameters-prediction-length cannot be used together',
    ],
    [
      [
        'time-series',
        'forecast',
        '--model-id',
        'm',
        '--data',
        '{}',
        '--schema-timestamp-column',
        'd',
        '--parameters-prediction-length',
        '0',
      ],
      '--parameters-prediction-length must be',
    ],
    [
      [
        'time-series',
        'forecast',
        '--model-id',
        'm',
        '--data',
        '{}',
        '--schema-timestamp-column',
        'd',
        '--project-id',
        'p',
        '--project',
        'q',
      ],
      '--project-id and --project cannot be used together',
    ],
    [['deployment', 'list', '--project', 'nowhere'], 'no project named "nowhere"'],
  ])('%j: %s', async (args, message) => {
    const r = await bin(args);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`error: ${message}`);
    expect(t.server.requests.filter((q) => !q.path.startsWith('/v2/'))).toHaveLength(0);
  });

  it("a profile that is not watsonx is told the command is watsonx.ai's", async () => {
    const r = await runBin(['--profile', 'local-azure', 'deployment', 'list'], { env: t.home.env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('error: deployment list is a watsonx.ai command');
  });

  it('a forecast with no space or project anywhere says where to give one', async () => {
    const r = await bin([
      'time-series',
      'forecast',
      '--model-id',
      'm',
      '--data',
      '{}',
      '--schema-timestamp-column',
      'd',
    ]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('error: time-series forecast runs in a space or a project');
  });
});
