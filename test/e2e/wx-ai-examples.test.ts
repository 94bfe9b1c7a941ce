import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useServer } from '../helpers/server-fixture.js';
import { runBin } from '../helpers/run-cli.js';
import {
  watsonxDeploymentListQuerySchema,
  watsonxDeploymentResourceSchema,
  watsonxForecastResponseSchema,
  watsonxGenerateRequestSchema,
} from '../contract/watsonx-schemas.js';
import { watsonxDeploymentChatRequestSchema } from '../contract/chat-schemas.js';

/**
 * IBM's example for each wx-ai command textgen mirrors here (test/contract/cpdctl/*.json, from cpdctl's command
 * reference), with `cpdctl wx-ai` written `textgen` and its placeholders ("exampleString", an id the service could
 * not have) replaced by real values of `serve`: each runs against serve and sends the request it means.
 */
const t = useServer();
const CONTRACT = join(import.meta.dirname, '../contract/cpdctl');
const SPACE = '63dc4cf1-252f-424b-b52d-5cdd9814987f';

interface ParityFile {
  command: string[];
  example: string;
}

const files: ParityFile[] = readdirSync(CONTRACT)
  .filter((f) => f.endsWith('.json'))
  .map((f) => JSON.parse(readFileSync(join(CONTRACT, f), 'utf8')) as ParityFile);

/** The words of an example line: plain words and '…' quoted ones (IBM's examples quote no other way). */
function words(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? '');
}

/** The value each placeholder becomes, by command and flag (placeholders inside JSON values stay as written). */
const REAL: Record<string, Record<string, string>> = {
  'deployment chat': { '--id-or-name': 'assistant', '--context': 'Today is Wednesday' },
  'deployment chat-stream': { '--id-or-name': 'assistant_serving', '--context': 'Today is Wednesday' },
  'deployment get': { '--deployment-id': 'summarize' },
  'deployment list': {
    '--serving-name': 'classification_serving',
    '--tag-value': 'summaries',
    '--asset-id': 'ibm/granite-3-3-8b-instruct',
    '--prompt-template-id': 'prompt-template-classification',
    '--name': 'classification',
    '--type': 'prompt_template',
    '--state': 'ready',
  },
  'deployment text-generate': { '--id-or-name': 'demo' },
  'deployment text-generate-stream': { '--id-or-name': 'classification', '--input': 'Is the sky blue?' },
  // The start of a page is a token the service makes: serve's are offsets.
  'foundation-model list-models': { '--start': '0' },
  'foundation-model list-tasks': { '--start': '1' },
  'time-series forecast': { '--model-id': 'ibm/granite-ttm-512-96-r2', '--data': '@history.json', '--space-id': SPACE },
};

const cwd = mkdtempSync(join(tmpdir(), 'textgen-wx-ai-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));
// The forecast example's columns (date, ID1 and its two targets), 512 hourly rows: the least granite-ttm-512 takes.
const HOURS = Array.from({ length: 512 }, (_, i) => new Date(Date.UTC(2024, 0, 1, i)).toISOString().slice(0, 19));
writeFileSync(
  join(cwd, 'history.json'),
  JSON.stringify({
    date: HOURS,
    ID1: HOURS.map(() => 'D1'),
    exampleString: HOURS.map((_, i) => i),
    anotherTestString: HOURS.map((_, i) => 100 - (i % 7)),
  }),
);

function asTextgen(file: ParityFile): string[] {
  const all = words(file.example);
  expect(all.slice(0, 2)).toEqual(['cpdctl', 'wx-ai']);
  const args = all.slice(2);
  const real = REAL[file.command.join(' ')] ?? {};
  return args.map((word, i) => {
    const flag = args[i - 1];
    return flag !== undefined && real[flag] !== undefined ? (real[flag] as string) : word;
  });
}

function example(command: string): string[] {
  const file = files.find((f) => f.command.join(' ') === command);
  if (!file) throw new Error(`no parity file for ${command}`);
  return asTextgen(file);
}

async function run(args: string[]) {
  const r = await runBin(['--provider', 'watsonx', '--url', t.server.url, '--token', 't', ...args, '-o', 'json'], {
    env: t.home.env,
    cwd,
  });
  expect(r.stderr.split('\n').filter((l) => l.startsWith('error'))).toEqual([]);
  expect(r.exitCode).toBe(0);
  return r;
}

function only(path: RegExp) {
  const sent = t.server.requests.filter((r) => path.test(r.path));
  expect(sent).toHaveLength(1);
  return sent[0]!;
}

describe("IBM's examples, run against serve", () => {
  it('every command of this file has its parity file and example (the text commands have theirs elsewhere)', () => {
    const named = files.map((f) => f.command.join(' '));
    for (const command of Object.keys(REAL)) expect(named).toContain(command);
  });

  it.each(['deployment chat', 'deployment chat-stream'])(
    '%s sends the messages as given, the context and the version',
    async (command) => {
      const args = example(command);
      const r = await run(args);
      const sent = only(/^\/ml\/v1\/deployments\/[^/]+\/text\/chat(_stream)?$/);
      const stream = command.endsWith('-stream');
      expect(sent.path).toBe(
        `/ml/v1/deployments/${stream ? 'assistant_serving' : 'assistant'}/text/chat${stream ? '_stream' : ''}`,
      );
      expect(sent.query.version).toBe('2019-01-01');
      const messages = JSON.parse(args[args.indexOf('--messages') + 1]!);
      expect(sent.json).toEqual({ messages, context: 'Today is Wednesday' });
      expect(watsonxDeploymentChatRequestSchema.safeParse(sent.json).success).toBe(true);
      // -o json is the service's body: the answer, or the stream's events.
      const body = JSON.parse(r.stdout);
      const answers = stream ? body : [body];
      expect(answers[0].model_id).toBe('ibm/granite-3-3-8b-instruct');
    },
  );

  it('deployment get asks for the deployment in the space and the project the example gives', async () => {
    const r = await run(example('deployment get'));
    const sent = only(/^\/ml\/v4\/deployments\//);
    expect(sent.path).toBe('/ml/v4/deployments/summarize');
    expect(sent.query).toEqual({
      version: '2019-01-01',
      space_id: SPACE,
      project_id: 'a77190a2-f52d-4f2a-be3d-7867b5f46edc',
    });
    const body = JSON.parse(r.stdout);
    expect(watsonxDeploymentResourceSchema.safeParse(body).success).toBe(true);
    expect(body.metadata.id).toBe('summarize');
  });

  it('deployment list sends every filter of the example, conflict=false included', async () => {
    const r = await run(example('deployment list'));
    const sent = only(/^\/ml\/v4\/deployments$/);
    expect(sent.query).toEqual({
      version: '2019-01-01',
      space_id: SPACE,
      project_id: 'a77190a2-f52d-4f2a-be3d-7867b5f46edc',
      serving_name: 'classification_serving',
      'tag.value': 'summaries',
      asset_id: 'ibm/granite-3-3-8b-instruct',
      prompt_template_id: 'prompt-template-classification',
      name: 'classification',
      type: 'prompt_template',
      state: 'ready',
      conflict: 'false',
    });
    expect(watsonxDeploymentListQuerySchema.safeParse(sent.query).success).toBe(true);
    // No deployment is both classification's and tagged summaries: the service's empty page.
    expect(JSON.parse(r.stdout)).toMatchObject({ total_count: 0, resources: [] });
  });

  it.each(['deployment text-generate', 'deployment text-generate-stream'])(
    '%s sends the parameters and moderations as given',
    async (command) => {
      const args = example(command);
      await run(args);
      const sent = only(/^\/ml\/v1\/deployments\/[^/]+\/text\/generation(_stream)?$/);
      expect(sent.query.version).toBe('2019-01-01');
      expect(sent.json).toMatchObject({
        parameters: JSON.parse(args[args.indexOf('--parameters') + 1]!),
        moderations: JSON.parse(args[args.indexOf('--moderations') + 1]!),
      });
      expect(watsonxGenerateRequestSchema.safeParse(sent.json).success).toBe(true);
    },
  );

  it('foundation-model list-models sends start, limit, filters and tech_preview', async () => {
    const r = await run(example('foundation-model list-models'));
    const sent = only(/^\/ml\/v1\/foundation_model_specs$/);
    expect(sent.query).toEqual({
      version: '2019-01-01',
      start: '0',
      limit: '50',
      filters: 'modelid_ibm/granite-13b-instruct-v1,modelid_ibm/granite-13b-instruct-v2:or',
      tech_preview: 'false',
    });
    expect(JSON.parse(r.stdout)).toHaveProperty('resources');
  });

  it('foundation-model list-tasks sends start and limit', async () => {
    const r = await run(example('foundation-model list-tasks'));
    expect(only(/^\/ml\/v1\/foundation_model_tasks$/).query).toEqual({
      version: '2019-01-01',
      start: '1',
      limit: '50',
    });
    expect(JSON.parse(r.stdout).resources[0].task_id).toBeDefined();
  });

  it('time-series forecast sends the data, the schema, both scopes and the prediction length', async () => {
    const r = await run(example('time-series forecast'));
    const sent = only(/^\/ml\/v1\/time_series\/forecast$/);
    expect(sent.query.version).toBe('2019-01-01');
    const body = sent.json as Record<string, unknown>;
    expect(body.schema).toEqual({
      timestamp_column: 'date',
      id_columns: ['ID1'],
      freq: '1h',
      target_columns: ['exampleString', 'anotherTestString'],
    });
    expect(body).toMatchObject({
      project_id: '12ac4cf1-252f-424b-b52d-5cdd9814987f',
      space_id: SPACE,
      parameters: { prediction_length: 38 },
    });
    const answer = JSON.parse(r.stdout);
    expect(watsonxForecastResponseSchema.safeParse(answer).success).toBe(true);
    const result = answer.results[0];
    expect(result.date).toHaveLength(38);
    expect(result.date[0]).toBe('2024-01-22T08:00:00');
    expect(result.exampleString[0]).toBe(512);
    expect(result.ID1).toEqual(Array(38).fill('D1'));
  });
});

describe('the same examples with --dry-run', () => {
  it.each(Object.keys(REAL))('%s prints one curl line and sends nothing', async (command) => {
    const r = await runBin(
      ['--provider', 'watsonx', '--url', 'https://wx.example', '--token', 't', '--dry-run', ...example(command)],
      {
        env: t.home.env,
        cwd,
      },
    );
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^curl .*'https:\/\/wx\.example\/ml\/v[14]\/[^']*version=2019-01-01[^']*'/);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
  });
});
