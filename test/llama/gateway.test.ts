/**
 * `serve --upstream` in front of the llama engine: IBM's SDK → a gateway whose upstream is a `local` profile with
 * `engine: llama` (the test's successor model, whose greedy continuation of "a" is the alphabet). The profile's
 * embedded server starts inside the gateway's process; the SDK gets the model's exact text, plain and streamed.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WatsonXAI } from '@ibm-cloud/watsonx-ai';
import { NoAuthAuthenticator } from '@ibm-cloud/watsonx-ai/authentication';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineAvailable, successorModelDir } from '../helpers/llama-engine.js';
import { makeHome } from '../helpers/run-cli.js';
import { type Gateway, startGateway, stopGateways } from '../helpers/upstream-gateway.js';

const available = engineAvailable();

describe.skipIf(!available)("IBM's SDK → serve --upstream a local llama profile", () => {
  let home: ReturnType<typeof makeHome>;
  let model: ReturnType<typeof successorModelDir>;
  let gw: Gateway;
  let wx: WatsonXAI;

  beforeAll(async () => {
    home = makeHome();
    model = successorModelDir();
    const config = join(home.dir, 'gateway.yaml');
    writeFileSync(
      config,
      `profiles:\n  llama:\n    provider: openai\n    engine: llama\n    model_path: ${model.path}\n    threads: 1\n    context_size: 256\n    gpu: 'off'\n`,
    );
    gw = await startGateway(config, ['--upstream', 'watsonx=llama'], home.env);
    wx = WatsonXAI.newInstance({ serviceUrl: gw.url, projectId: 'p', authenticator: new NoAuthAuthenticator() });
  }, 120_000);
  afterAll(() => {
    stopGateways();
    home?.cleanup();
    model?.cleanup();
  });

  it('generateText and generateTextStream: the model continues "a" with the alphabet', async () => {
    expect(gw.stderr()).toMatch(/textgen serve: watsonx → upstream llama \(openai at http:\/\/127\.0\.0\.1:\d+/);
    const parameters = { decoding_method: 'greedy', max_new_tokens: 10 } as const;
    const whole = await wx.generateText({ input: 'a', modelId: 'ibm/granite-13b-instruct-v2', parameters });
    expect(whole.result.results[0]!.generated_text.replace(/\s/g, '')).toBe('bcdefghijk');
    const stream = await wx.generateTextStream({
      input: 'a',
      modelId: 'ibm/granite-13b-instruct-v2',
      parameters,
      returnObject: true,
    });
    let text = '';
    for await (const e of stream) text += e.data.results[0]!.generated_text;
    expect(text).toBe(whole.result.results[0]!.generated_text);
  }, 120_000);
});
