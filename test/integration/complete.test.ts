import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/run-cli.js';
import { useServer } from '../helpers/server-fixture.js';
import { generationRequests } from '../helpers/wire.js';

const fixture = useServer();

/** complete against the embedded server as a watsonx foundation-model call. */
function complete(args: string[], input?: string) {
  return runInProcess(['--url', fixture.server.url, 'complete', '-m', 'ibm/granite-13b-instruct-v2', ...args], {
    env: { ...fixture.home.env, TEXTGEN_SPACE_ID: 'space-1' },
    ...(input !== undefined ? { input } : {}),
  });
}

function sent(): { path: string; body: Record<string, unknown> } {
  const reqs = generationRequests(fixture.server.requests);
  expect(reqs).toHaveLength(1);
  return { path: reqs[0]?.path as string, body: reqs[0]?.json as Record<string, unknown> };
}

describe('complete maps its short flags onto the canonical parameters', () => {
  it.each<[string[], Record<string, unknown>]>([
    [['--max-tokens', '12'], { max_new_tokens: 12 }],
    [['--min-tokens', '2'], { min_new_tokens: 2 }],
    [['-t', '0.4'], { temperature: 0.4 }],
    [['--temperature', '1.5'], { temperature: 1.5 }],
    [['--top-p', '0.9'], { top_p: 0.9 }],
    [['--top-k', '40'], { top_k: 40 }],
    [['--stop', 'a,b', '--stop', '.'], { stop_sequences: ['a,b', '.'] }],
    [['--seed', '42'], { random_seed: 42 }],
    [['--greedy'], { decoding_method: 'greedy' }],
    [['--logprobs'], { return_options: { generated_tokens: true, token_logprobs: true } }],
    [['--logprobs=3'], { return_options: { generated_tokens: true, token_logprobs: true, top_n_tokens: 3 } }],
    [['--echo'], { return_options: { input_text: true } }],
    [['--parameters', '{"max_new_tokens": 5, "top_k": 3}', '--top-k', '7'], { max_new_tokens: 5, top_k: 7 }],
  ])('%j', async (flags, parameters) => {
    const r = await complete(['Hello', 'there', ...flags]);
    expect(r.stderr).not.toMatch(/error/);
    expect(r.exitCode).toBe(0);
    const { path, body } = sent();
    expect(path).toBe('/ml/v1/text/generation');
    expect(body).toStrictEqual({
      input: 'Hello there',
      model_id: 'ibm/granite-13b-instruct-v2',
      space_id: 'space-1',
      parameters,
    });
  });

  it('without a terminal it does not stream; --stream asks for one', async () => {
    await complete(['Hi']);
    expect(sent().path).toBe('/ml/v1/text/generation');
    fixture.server.requests.length = 0;
    const r = await complete(['Hi', '--stream']);
    expect(r.exitCode).toBe(0);
    expect(sent().path).toBe('/ml/v1/text/generation_stream');
  });

  it('the prompt can be piped', async () => {
    const r = await complete([], 'Piped prompt');
    expect(r.exitCode).toBe(0);
    expect(sent().body.input).toBe('Piped prompt');
  });

  it('prompt variables are filled by the CLI for a foundation model', async () => {
    const r = await complete(['Say hi to {{who}}', '--parameters', '{"prompt_variables": {"who": "Ada"}}']);
    expect(r.exitCode).toBe(0);
    expect(sent().body).toStrictEqual({
      input: 'Say hi to Ada',
      model_id: 'ibm/granite-13b-instruct-v2',
      space_id: 'space-1',
    });
  });

  it.each<[string, string[], RegExp]>([
    ['-n on watsonx', ['Hi', '-n', '2'], /parameter n \(several completions\) is not supported by watsonx/],
    ['a bad --top-k', ['Hi', '--top-k', '0'], /--top-k must be an integer from 1 to 100, got 0/],
    ['a bad --logprobs', ['Hi', '--logprobs=many'], /--logprobs takes a number/],
    ['a bad -n', ['Hi', '-n', '0'], /-n\/--choices must be an integer from 1 to 128/],
    ['no prompt', [], /missing required option: PROMPT/],
    ['prompt words and --input-file', ['Hi', '--input-file', 'x.txt'], /give the prompt once/],
  ])('%s is a usage error, nothing sent', async (_n, args, message) => {
    const r = await complete(args);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(fixture.server.requests).toHaveLength(0);
  });

  it('a watsonx profile without space or project says so', async () => {
    const r = await runInProcess(['--url', fixture.server.url, 'complete', '-m', 'm', 'Hi'], { env: fixture.home.env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/needs space_id or project_id/);
  });
});

describe('names the service does not know are its own errors, rendered with a way forward', () => {
  const env = () => ({ ...fixture.home.env, TEXTGEN_SPACE_ID: 'space-1' });

  it.each([[[]], [['--stream']]])(
    'complete -m with an unknown model %j: exit 4, the 404 model_not_supported, a hint to list the models',
    async (flags) => {
      const r = await runInProcess(
        ['--url', fixture.server.url, 'complete', '-m', 'ibm/granite-2-imaginary', ...flags, 'Hi'],
        { env: env() },
      );
      expect(r.exitCode).toBe(4);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(
        /^error: watsonx returned HTTP 404 model_not_supported: Model 'ibm\/granite-2-imaginary' is not supported \(trace [0-9a-f]{32}\)\nhint: run "textgen models" to list the model ids this service offers\n$/,
      );
    },
  );

  it('deployment text-generate with an unknown deployment: exit 4, the 404 deployment_does_not_exist, a hint to list the deployments', async () => {
    const r = await runInProcess(
      [
        '--url',
        fixture.server.url,
        'deployment',
        'text-generate',
        '--id-or-name',
        'no-such-deployment',
        '--input',
        'Hi',
      ],
      { env: env() },
    );
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(
      /^error: watsonx returned HTTP 404 deployment_does_not_exist: Deployment with id 'no-such-deployment' does not exist\. Re-try with a valid deployment id\. \(trace [0-9a-f]{32}\)\n/,
    );
    expect(r.stderr).toMatch(
      /\nhint: run "textgen models --deployments" to list the deployments of your space or project \(by id or serving name\)\n$/,
    );
  });

  it('a deployment by its serving name works', async () => {
    const r = await runInProcess(
      [
        '--url',
        fixture.server.url,
        'deployment',
        'text-generate',
        '--id-or-name',
        'demo_serving',
        '--input',
        'Hi',
        '--parameters-max-new-tokens',
        '2',
        '-o',
        'json',
      ],
      { env: env() },
    );
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).model_id).toBe('textgen/local-demo');
  });
});
