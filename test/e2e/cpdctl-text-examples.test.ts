/**
 * IBM's examples of the `wx-ai text …` commands (cpdctl command reference, 2026-02-26), with `cpdctl wx-ai` written
 * `textgen` and their placeholders replaced by real values, against `serve`: each runs (exit 0) and sends the body the
 * example means — the fixture checks every request against test/contract after each test, and each test compares the
 * body with the example's own JSON. What was replaced, and why:
 *   - models IBM has withdrawn or that are placeholders (google/flan-ul2, "slate", meta-llama/llama-3-8b-instruct,
 *     "exampleString") by ones the catalog lists (google/flan-t5-xl, ibm/slate-30m-english-rtrvr,
 *     meta-llama/llama-3-3-70b-instruct);
 *   - `--space-id exampleString` by a 36-character id (the examples give a space and a project: the call carries the
 *     project, one scope per request);
 *   - in the chat examples, a logit bias of token ids for `{"anyKey": "anyValue"}`, and `--tool-choice-option` left
 *     out (it names the tool choice that `--tool-choice` also gives; the service takes one). Their messages and
 *     tools are IBM's, verbatim.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runBin } from '../helpers/run-cli.js';
import { useServer } from '../helpers/server-fixture.js';
import { watsonxRerankResponseSchema } from '../contract/watsonx-schemas.js';

const fixture = useServer();
const { home } = fixture;
const SPACE = '3fc54cf1-252f-424b-b52d-5cdd9814987f';
const PROJECT = '12ac4cf1-252f-424b-b52d-5cdd9814987f';

beforeAll(() => {
  mkdirSync(join(home.dir, 'config', 'textgen'), { recursive: true });
  writeFileSync(
    join(home.dir, 'config', 'textgen', 'config.yaml'),
    `profiles:\n  wx: { provider: watsonx, url: "${fixture.server.url}", space_id: sp-1 }\n`,
  );
});

const textgen = (args: string[]) => runBin(['--profile', 'wx', ...args], { env: home.env });
const sent = (path: string) => fixture.server.requests.filter((r) => r.path === path);

const EMAIL =
  'Generate a marketing email advertising a new sale with the following characteristics:\\n\\nCompany: Swimwear Unlimited\\n\\nOffer Keywords: {Select customers only, mid-summer fun, swimwear sale}\\n\\nOffer End Date: July 15\\n\\nAdvertisement Tone: Exciting!\\n\\nInclude no URLs.\\n\\nInclude no telephone numbers.\\n';
const GEN_PARAMETERS = {
  decoding_method: 'greedy',
  length_penalty: { decay_factor: 2.5, start_index: 5 },
  max_new_tokens: 30,
  min_new_tokens: 5,
  random_seed: 1,
  stop_sequences: ['fail'],
  temperature: 0.8,
  time_limit: 600000,
  top_k: 50,
  top_p: 0.5,
  repetition_penalty: 1.5,
  truncate_input_tokens: 1,
  return_options: {
    input_text: true,
    generated_tokens: true,
    input_tokens: true,
    token_logprobs: true,
    token_ranks: true,
    top_n_tokens: 2,
  },
  include_stop_sequence: true,
};
const MODERATIONS = {
  hap: {
    input: { enabled: true, threshold: 0 },
    output: { enabled: true, threshold: 0 },
    mask: { remove_entity_value: false },
  },
  pii: { input: { enabled: true }, output: { enabled: true }, mask: { remove_entity_value: false } },
  input_ranges: [{ start: 0, end: 0 }],
};

describe("IBM's wx-ai text examples against serve", () => {
  it.each([
    ['generate', '/ml/v1/text/generation'],
    ['generate-stream', '/ml/v1/text/generation_stream'],
  ])('text %s', async (command, path) => {
    const r = await textgen([
      'text',
      command,
      '--input',
      EMAIL,
      '--model-id',
      'google/flan-t5-xl',
      '--space-id',
      SPACE,
      '--project-id',
      PROJECT,
      '--parameters',
      JSON.stringify(GEN_PARAMETERS),
      '--moderations',
      JSON.stringify(MODERATIONS),
      '--version',
      '2019-01-01',
    ]);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(r.stdout.length).toBeGreaterThan(0);
    const [request] = sent(path);
    expect(request!.query.version).toBe('2019-01-01');
    expect(request!.json).toEqual({
      input: EMAIL,
      model_id: 'google/flan-t5-xl',
      project_id: PROJECT,
      parameters: GEN_PARAMETERS,
      moderations: MODERATIONS,
    });
  });

  // IBM's own conversation and tool, verbatim.
  const MESSAGES = [
    {
      role: 'assistant',
      content: 'You are a helpful assistant.',
      name: 'exampleString',
      refusal: 'exampleString',
      tool_calls: [
        { id: 'exampleString', type: 'function', function: { name: 'exampleString', arguments: 'exampleString' } },
      ],
    },
  ];
  const TOOLS = [
    {
      type: 'function',
      function: { name: 'exampleString', description: 'exampleString', parameters: { anyKey: 'anyValue' } },
    },
  ];
  it.each([
    ['chat', '/ml/v1/text/chat', '100', '38', ['exampleString', 'anotherTestString'], '0', '1000'],
    ['chat-stream', '/ml/v1/text/chat_stream', '1024', '41', ['this', 'the'], '1', '600000'],
  ])('text %s', async (command, path, maxTokens, seed, stop, temperature, timeLimit) => {
    const r = await textgen([
      'text',
      command,
      '--model-id',
      'meta-llama/llama-3-3-70b-instruct',
      '--messages',
      JSON.stringify(MESSAGES),
      '--space-id',
      SPACE,
      '--project-id',
      '63dc4cf1-252f-424b-b52d-5cdd9814987f',
      '--tools',
      JSON.stringify(TOOLS),
      '--tool-choice',
      '{"type": "function", "function": {"name": "exampleString"}}',
      '--frequency-penalty',
      '0',
      '--logit-bias',
      '{"1003": -100}',
      '--logprobs=false',
      '--top-logprobs',
      '0',
      '--max-tokens',
      maxTokens,
      '--n',
      '1',
      '--presence-penalty',
      '0',
      '--response-format',
      '{"type": "json_object"}',
      '--seed',
      seed,
      '--stop',
      stop.join(','),
      '--temperature',
      temperature,
      '--top-p',
      '1',
      '--time-limit',
      timeLimit,
      '--version',
      '2019-01-01',
    ]);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const [request] = sent(path);
    expect(request!.json).toEqual({
      model_id: 'meta-llama/llama-3-3-70b-instruct',
      project_id: '63dc4cf1-252f-424b-b52d-5cdd9814987f',
      messages: MESSAGES,
      tools: TOOLS,
      tool_choice: { type: 'function', function: { name: 'exampleString' } },
      frequency_penalty: 0,
      logit_bias: { '1003': -100 },
      logprobs: false,
      top_logprobs: 0,
      max_tokens: Number(maxTokens),
      n: 1,
      presence_penalty: 0,
      response_format: { type: 'json_object' },
      seed: Number(seed),
      stop,
      temperature: Number(temperature),
      top_p: 1,
      time_limit: Number(timeLimit),
    });
  });

  it('text calculate-embeddings', async () => {
    const text = 'Youth craves thrills while adulthood cherishes wisdom.';
    const r = await textgen([
      'text',
      'calculate-embeddings',
      '--model-id',
      'ibm/slate-30m-english-rtrvr',
      '--inputs',
      text,
      '--space-id',
      SPACE,
      '--project-id',
      PROJECT,
      '--parameters',
      '{"truncate_input_tokens": 1, "return_options": {"input_text": true}}',
      '--version',
      '2019-01-01',
    ]);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(body.results[0].input).toBe(text);
    expect(body.results[0].embedding).toHaveLength(384);
    expect(sent('/ml/v1/text/embeddings')[0]!.json).toEqual({
      model_id: 'ibm/slate-30m-english-rtrvr',
      inputs: [text],
      project_id: PROJECT,
      parameters: { truncate_input_tokens: 1, return_options: { input_text: true } },
    });
  });

  it('text rerank', async () => {
    const input =
      "In my younger years, I often reveled in the excitement of spontaneous adventures and embraced the thrill of the unknown, whereas in my grownup life, I've come to appreciate the comforting stability of a well-established routine.";
    const query = 'As a Youth, I craved excitement while in adulthood I followed Enthusiastic Pursuit.';
    const parameters = { truncate_input_tokens: 1, return_options: { top_n: 2, inputs: false, query: false } };
    const r = await textgen([
      'text',
      'rerank',
      '--model-id',
      'cross-encoder/ms-marco-minilm-l-12-v2',
      '--inputs',
      JSON.stringify([{ text: input }]),
      '--query',
      query,
      '--space-id',
      SPACE,
      '--project-id',
      PROJECT,
      '--parameters',
      JSON.stringify(parameters),
      '--version',
      '2019-01-01',
    ]);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const body = watsonxRerankResponseSchema.parse(JSON.parse(r.stdout));
    expect(body.results).toEqual([{ index: 0, score: expect.any(Number) }]);
    expect(sent('/ml/v1/text/rerank')[0]!.json).toEqual({
      model_id: 'cross-encoder/ms-marco-minilm-l-12-v2',
      inputs: [{ text: input }],
      query,
      project_id: PROJECT,
      parameters,
    });
  });

  it('text tokenize', async () => {
    const input = 'Write a tagline for an alumni association: Together we';
    const r = await textgen([
      'text',
      'tokenize',
      '--model-id',
      'google/flan-t5-xl',
      '--input',
      input,
      '--space-id',
      SPACE,
      '--project-id',
      PROJECT,
      '--parameters',
      '{"return_tokens": true}',
      '--version',
      '2019-01-01',
    ]);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(body.result.tokens.join('')).toBe(input);
    expect(sent('/ml/v1/text/tokenization')[0]!.json).toEqual({
      model_id: 'google/flan-t5-xl',
      input,
      project_id: PROJECT,
      parameters: { return_tokens: true },
    });
  });
});
