import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/emulator/core/index.js';
import { freqMs } from '../../profiles/watsonx/server/time-series.js';
import { watsonxErrorSchema, watsonxForecastResponseSchema } from '../contract/watsonx-schemas.js';

/**
 * serve's side of the wx-ai mirrors (issue 25): the forecast route (deterministic, prediction_length rows per series,
 * timestamps continuing freq in the data's own style, the refusals), spaces and projects by name, deployment chat
 * with prompt-template deployments (context inserted as IBM documents it), the deployment listing's filters and
 * paging, and the fault switches on the new routes.
 */
let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server.close();
});

const V = 'version=2024-05-01';
const SPACE = '63dc4cf1-252f-424b-b52d-5cdd9814987f';

async function call(path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
}

function series(rows: number, stamp: (i: number) => unknown) {
  return { t: Array.from({ length: rows }, (_, i) => stamp(i)), y: Array.from({ length: rows }, (_, i) => 3 * i + 1) };
}

function forecast(
  data: Record<string, unknown[]>,
  schema: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) {
  return call(`/ml/v1/time_series/forecast?${V}`, {
    model_id: 'ibm/granite-ttm-512-96-r2',
    data,
    schema,
    space_id: SPACE,
    ...extra,
  });
}

describe('POST /ml/v1/time_series/forecast', () => {
  it('continues a straight line and the timestamps, the same every time; 96 rows by default', async () => {
    const data = series(512, (i) => new Date(Date.UTC(2024, 0, 1) + i * 900_000).toISOString());
    const a = await forecast(data, { timestamp_column: 't', freq: '15min' });
    expect(a.status).toBe(200);
    expect(watsonxForecastResponseSchema.safeParse(a.body).success).toBe(true);
    const result = a.body.results[0];
    expect(result.t).toHaveLength(96);
    expect(result.t.slice(0, 2)).toEqual(['2024-01-06T08:00:00.000Z', '2024-01-06T08:15:00.000Z']);
    expect(result.y.slice(0, 3)).toEqual([1537, 1540, 1543]);
    expect(a.body).toMatchObject({ input_data_points: 512, output_data_points: 96 });
    const b = await forecast(data, { timestamp_column: 't', freq: '15min' });
    expect(b.body.results).toEqual(a.body.results);
  });

  it.each([
    [
      'dates',
      (i: number) => new Date(Date.UTC(2024, 0, 1) + i * 86_400_000).toISOString().slice(0, 10),
      'D',
      '2025-05-27',
    ],
    [
      'an offset',
      (i: number) => `${new Date(Date.UTC(2024, 0, 1, i)).toISOString().slice(0, 19)}+02:00`,
      '1h',
      '2024-01-22T08:00:00+02:00',
    ],
    ['integers (freq or not, a step of rows)', (i: number) => i * 10, undefined, 5120],
  ])('timestamps written as %s go on in the same style', async (_what, stamp, freq, first) => {
    const r = await forecast(
      series(512, stamp),
      { timestamp_column: 't', ...(freq ? { freq } : {}) },
      {
        parameters: { prediction_length: 2 },
      },
    );
    expect(r.status).toBe(200);
    expect(r.body.results[0].t[0]).toBe(first);
  });

  it('prediction_length rows per id, in the order the ids first appear', async () => {
    const t = [...series(512, (i) => i).t, ...series(512, (i) => i).t];
    const id = [...Array(512).fill('b'), ...Array(512).fill('a')];
    const y = [...Array(512).fill(5), ...Array(512).fill(7)];
    const r = await forecast(
      { t, id, y },
      { timestamp_column: 't', id_columns: ['id'] },
      { parameters: { prediction_length: 2 } },
    );
    expect(r.body.results[0]).toEqual({ t: [512, 513, 512, 513], id: ['b', 'b', 'a', 'a'], y: [5, 5, 7, 7] });
  });

  it.each([
    [
      'a missing timestamp column',
      series(512, (i) => i),
      { timestamp_column: 'when' },
      {},
      "Timestamp column 'when' is not present in the data",
    ],
    [
      'too little history',
      series(100, (i) => i),
      { timestamp_column: 't' },
      {},
      'Data should have at least 512 rows per time series (the context length of the model); got 100',
    ],
    [
      "a prediction_length above the model's",
      series(512, (i) => i),
      { timestamp_column: 't' },
      { parameters: { prediction_length: 97 } },
      "must be no more than the model's prediction length (96)",
    ],
    [
      'an unknown freq',
      series(512, (i) => `2024-01-01T00:00:0${i % 10}`),
      { timestamp_column: 't', freq: '2Q' },
      {},
      "Invalid frequency '2Q'",
    ],
  ])("%s is the service's 400", async (_what, data, schema, extra, message) => {
    const r = await forecast(data, schema, extra);
    expect(r.status).toBe(400);
    expect(watsonxErrorSchema.safeParse(r.body).success).toBe(true);
    expect(r.body.errors[0].message).toContain(message);
  });

  it('a body without schema, or without a space and a project, is a json_validation_error; an unknown model a 404', async () => {
    const noSchema = await call(`/ml/v1/time_series/forecast?${V}`, {
      model_id: 'ibm/granite-ttm-512-96-r2',
      data: {},
      space_id: SPACE,
    });
    expect(noSchema.body.errors[0]).toMatchObject({
      code: 'json_validation_error',
      message: expect.stringContaining("'schema' is required"),
    });
    const noScope = await call(`/ml/v1/time_series/forecast?${V}`, {
      model_id: 'ibm/granite-ttm-512-96-r2',
      data: {},
      schema: { timestamp_column: 't' },
    });
    expect(noScope.body.errors[0].message).toContain("either 'project_id' or 'space_id'");
    const unknown = await forecast(
      series(512, (i) => i),
      { timestamp_column: 't' },
      { model_id: 'ibm/nothing' },
    );
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors[0].code).toBe('model_not_supported');
  });

  it('the fault switches apply to it (a queued 503 once, then the answer)', async () => {
    server.faults.push({ kind: 'status', status: 503, path: '/ml/v1/time_series/forecast' });
    const failed = await forecast(
      series(512, (i) => i),
      { timestamp_column: 't' },
    );
    expect(failed.status).toBe(503);
    const ok = await forecast(
      series(512, (i) => i),
      { timestamp_column: 't' },
    );
    expect(ok.status).toBe(200);
  });

  it('freq words: pandas aliases of fixed length', () => {
    expect([freqMs('1h'), freqMs('15min'), freqMs('D'), freqMs('30s'), freqMs('W'), freqMs('MS')]).toEqual([
      3_600_000,
      900_000,
      86_400_000,
      30_000,
      604_800_000,
      undefined,
    ]);
  });
});

describe('GET /v2/spaces and /v2/projects', () => {
  it('list by name: spaces by metadata.id, projects by metadata.guid; no match is an empty list', async () => {
    const spaces = await call('/v2/spaces?name=examples');
    expect(spaces.body.resources.map((s: { metadata: { id: string } }) => s.metadata.id)).toEqual([SPACE]);
    const shared = await call('/v2/spaces?name=shared');
    expect(shared.body.resources).toHaveLength(2);
    const projects = await call('/v2/projects?name=forecasts');
    expect(projects.body).toMatchObject({
      total_results: 1,
      resources: [{ metadata: { guid: '12ac4cf1-252f-424b-b52d-5cdd9814987f' } }],
    });
    expect((await call('/v2/projects?name=none')).body).toEqual({ total_results: 0, resources: [] });
  });
});

describe('deployment chat with prompt-template deployments', () => {
  const chat = (id: string, body: unknown) => call(`/ml/v1/deployments/${id}/text/chat?${V}`, body);

  it('context goes before the last user message, as IBM documents it', async () => {
    const question = 'Who are you and which day is tomorrow?';
    const a = await chat('assistant', {
      messages: [{ role: 'user', content: question }],
      context: 'Today is Wednesday',
      temperature: 0,
    });
    const b = await chat('assistant', {
      messages: [{ role: 'user', content: `Today is Wednesday. ${question}` }],
      temperature: 0,
    });
    expect(a.status).toBe(200);
    expect(a.body.choices[0].message.content).toBe(b.body.choices[0].message.content);
    expect(a.body.model_id).toBe('ibm/granite-3-3-8b-instruct');
  });

  it('a system message, or a template not in chat mode, is refused', async () => {
    const system = await chat('assistant_serving', {
      messages: [
        { role: 'system', content: 'x' },
        { role: 'user', content: 'y' },
      ],
    });
    expect(system.status).toBe(400);
    expect(system.body.errors[0].message).toContain("'messages[0].role' cannot be 'system'");
    const freeform = await chat('classification', { messages: [{ role: 'user', content: 'y' }] });
    expect(freeform.status).toBe(400);
    expect(freeform.body.errors[0].message).toContain("does not reference a prompt template with 'input_mode' 'chat'");
  });
});

describe('GET /ml/v4/deployments', () => {
  const list = (q: string) => call(`/ml/v4/deployments?${V}&space_id=${SPACE}&${q}`);
  const ids = (body: { resources: { metadata: { id: string } }[] }) => body.resources.map((d) => d.metadata.id);

  it.each([
    ['type=prompt_template', ['classification', 'summarize', 'assistant']],
    ['type=custom_foundation_model', ['demo']],
    ['type=foundation_model and prompt_template', ['classification', 'summarize', 'assistant']],
    ['asset_id=ibm/granite-3-3-8b-instruct&tag.value=chat', ['assistant']],
    ['prompt_template_id=prompt-template-summarize', ['summarize']],
    ['state=failed', []],
    ['state=ready&limit=2', ['demo', 'classification']],
  ])('%s', async (q, expected) => {
    const r = await list(q);
    expect(r.status).toBe(200);
    expect(ids(r.body)).toEqual(expected);
  });

  it('pages follow next.href with the filters kept', async () => {
    const first = await list('type=prompt_template&limit=2');
    expect(first.body.next.href).toContain('type=prompt_template');
    const next = await call(new URL(first.body.next.href).pathname + new URL(first.body.next.href).search);
    expect(ids(next.body)).toEqual(['assistant']);
  });

  it('an unknown state or type, and conflict with another filter, are 400s', async () => {
    expect((await list('state=sleeping')).status).toBe(400);
    expect((await list('type=nonsense')).status).toBe(400);
    expect((await list('conflict=true&name=demo&serving_name=x')).status).toBe(400);
  });
});
