/**
 * `POST /evaluate` of the local Aleph Alpha server. The expected completion is tokenized with the engine's real
 * tokenizer and scored against the engine's own greedy completion of the prompt — the text `/complete` gives with
 * temperature 0 — so `correct_greedy` is true exactly when `/complete` would have written the expected text, and the
 * tokens it would have written score high while the others score low. Deterministic: hashes, no randomness.
 * For the model a llama engine serves, `log_probability` is the model's own: the expected tokens' logprobs given
 * the prompt.
 */
import { runToEnd, type Engine } from '../../../src/emulator/engine/index.js';
import { hashString, mix, unit } from '../../../src/emulator/engine/random.js';
import { badRequest, success, type TaskAnswer } from './task-answer.js';
import { promptText } from './task-text.js';
import type { ValidEvaluationRequest } from './task-validate.js';
import { contextSize, MODEL_VERSION } from './models.js';
import { tokenPieces } from './text-spans.js';

/** Greedy tokens beyond the expected count, since the engine may cut the same text into tokens differently. */
const GREEDY_SLACK = 4;

export async function evaluate(body: ValidEvaluationRequest, signal: AbortSignal, engine: Engine): Promise<TaskAnswer> {
  const tokenizer = await engine.tokenizer();
  const prompt = promptText(tokenizer, body.prompt, 'prompt');
  if (!prompt.ok) return badRequest(prompt.message);
  const expected = body.completion_expected;
  const pieces = tokenPieces(tokenizer, expected);
  const expectedTokens = pieces.reduce((n, p) => n + p.ids.length, 0);
  const promptTokens = tokenizer.encode(prompt.text).length + prompt.imageTokens;
  const context = contextSize(engine, body.model);
  if (promptTokens + expectedTokens > context) {
    return badRequest(
      `Invalid request: the prompt (${promptTokens} tokens) plus 'completion_expected' (${expectedTokens} tokens) exceeds the ${context} tokens of ${body.model}`,
    );
  }

  const greedy = await runToEnd(
    engine,
    {
      input: prompt.text,
      parameters: {
        decoding_method: 'greedy',
        max_new_tokens: expectedTokens === 0 ? 0 : expectedTokens + GREEDY_SLACK,
        include_stop_sequence: false,
      },
    },
    { signal },
  );
  const logProbability =
    body.model === engine.modelName
      ? await modelLogProbability(engine, prompt.text, expected, signal)
      : heuristicLogProbability(prompt.text, expected, pieces, greedy);

  // What the model writes instead, about as long as the expected text.
  let completion = '';
  for (const t of greedy.generatedTokens) {
    if (completion.length >= expected.length) break;
    completion += t.text;
  }
  const characters = [...expected].length;
  const logPerplexity = -logProbability;
  return success({
    model_version: MODEL_VERSION,
    result: {
      log_probability: logProbability,
      log_perplexity: logPerplexity,
      log_perplexity_per_token: expectedTokens > 0 ? logPerplexity / expectedTokens : null,
      log_perplexity_per_character: characters > 0 ? logPerplexity / characters : null,
      correct_greedy: greedy.generatedText.startsWith(expected),
      token_count: expectedTokens,
      character_count: characters,
      completion,
    },
    num_tokens_prompt_total: promptTokens + expectedTokens,
  });
}

/** The served model's own score: the prompt and the expected text evaluated together, the expected tokens' logprobs summed. */
async function modelLogProbability(
  engine: Engine,
  prompt: string,
  expected: string,
  signal: AbortSignal,
): Promise<number> {
  if (expected === '') return 0;
  const promptTokens = (await engine.tokenizer()).encode(prompt).length;
  const scored = await runToEnd(
    engine,
    { input: prompt + expected, scoreInput: true, parameters: { max_new_tokens: 0 } },
    { signal },
  );
  return scored.inputTokens.slice(promptTokens).reduce((sum, t) => sum + (t.logprob ?? 0), 0);
}

/** The deterministic engine's stand-in: the greedy path's own logprobs where the expected text follows it, else hashes. */
function heuristicLogProbability(
  prompt: string,
  expected: string,
  pieces: ReturnType<typeof tokenPieces>,
  greedy: Awaited<ReturnType<typeof runToEnd>>,
): number {
  const salt = hashString(prompt);
  let logProbability = 0;
  let index = 0;
  for (const piece of pieces) {
    const onGreedyPath = greedy.generatedText.startsWith(expected.slice(0, piece.start + piece.length));
    for (const id of piece.ids) {
      const u = unit(mix(salt, id, index));
      const generated = greedy.generatedTokens[index];
      if (onGreedyPath && generated?.id === id && generated.logprob !== undefined) logProbability += generated.logprob;
      else logProbability += onGreedyPath ? -(0.05 + 0.45 * u * u) : -(1.5 + 8 * u * u);
      index++;
    }
  }

  return logProbability;
}
