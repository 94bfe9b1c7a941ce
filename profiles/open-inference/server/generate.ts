/**
 * `POST /v2/models/{model}[/versions/{version}]/generate[_stream]` on the embedded server: checks as TGI/KServe do
 * them, then the engine's tokens as one answer or as a Triton-style stream (`data: <json>` messages, no `event:`,
 * no `id:`, no end marker; a `: keep-alive` comment now and then, as TGI sends).
 */
import { DEFAULT_MAX_NEW_TOKENS } from '../../../src/emulator/engine/index.js';
import { applyFault, sendAnswer } from '../../../src/emulator/core/apply-fault.js';
import { EventStream, type StreamFaultWording } from '../../../src/emulator/core/event-stream.js';
import { takeFault } from '../../../src/emulator/core/take-fault.js';
import { write } from '../../../src/emulator/core/respond.js';
import type { RouteContext, RouteHandler } from '../../../src/emulator/core/router.js';
import { authorizeOip } from './auth.js';
import { oipErrorBody, oipFaultWording, sendOipError, tagRequestId } from './errors.js';
import { generateResponse, streamMessage, type ResponseMeta } from './response.js';
import { validateOipGenerateBody } from './validate.js';

/** Triton reports version "1" for a model asked for without a version. */
export const DEFAULT_MODEL_VERSION = '1';

/** A comment after the headers, then after every this many messages: enough for clients to meet one every time. */
const KEEP_ALIVE_EVERY = 8;
const KEEP_ALIVE = ': keep-alive\n\n';

const streamWording: StreamFaultWording = {
  errorEvent: () => ({
    data: JSON.stringify(
      oipErrorBody(424, 'Request failed during generation: the model server stopped while generating'),
    ),
  }),
  malformedEvent: () => ({ data: '{"text_output":' }),
};

export function generateRoute(stream: boolean): RouteHandler {
  return async (ctx: RouteContext) => {
    tagRequestId(ctx);
    if (!authorizeOip(ctx)) return;
    if (!('json' in ctx.request)) {
      const message =
        ctx.request.body.trim() === '' ? 'the request body is empty' : 'the request body is not valid JSON';
      return sendOipError(ctx.res, 400, `Failed to parse the request body as JSON: ${message}`);
    }
    const validation = validateOipGenerateBody(ctx.request.json);
    if (!validation.ok) return sendOipError(ctx.res, 422, validation.message);
    const request = validation.request;

    const engine = ctx.server.engine;
    const generation = await engine.startGeneration(
      {
        input: request.textInput,
        parameters: request.parameters,
        moderations: request.moderations,
        // details carry every token's logprob.
        tokenScores: request.details || request.tokenRanks || request.topNTokens > 0,
      },
      { signal: ctx.signal, tokenDelayMs: ctx.server.options.tokenDelayMs },
    );
    const maxTokens = request.parameters.max_new_tokens ?? DEFAULT_MAX_NEW_TOKENS;
    const window = engine.contextWindow;
    if (generation.inputTokenCount + maxTokens > window) {
      return sendOipError(
        ctx.res,
        422,
        `Input validation error: \`text_input\` tokens + \`max_tokens\` must be <= ${window}. Given: ${generation.inputTokenCount} \`text_input\` tokens and ${maxTokens} \`max_tokens\``,
      );
    }

    // Faults hit only requests the service would have served, so a test's 429 never hides a 422.
    const fault = takeFault(ctx, stream);
    if (await applyFault(fault, ctx, oipFaultWording(ctx.res))) return;

    const meta: ResponseMeta = {
      modelName: ctx.params.model!,
      modelVersion: ctx.params.version ?? DEFAULT_MODEL_VERSION,
      request,
      tokenizer: await engine.tokenizer(),
    };
    if (!stream) {
      for await (const step of generation) void step;
      await sendAnswer(ctx, fault, generateResponse(generation.summary(), meta));
      return;
    }

    const events = new EventStream(ctx, fault, streamWording);
    events.open();
    const keepAlive = () => write(ctx.res, KEEP_ALIVE, ctx.signal);
    if (!(await keepAlive())) return;
    let sent = 0;
    for await (const step of generation) {
      if (!(await events.send({ data: JSON.stringify(streamMessage(step, generation, meta)) }))) return;
      if (++sent % KEEP_ALIVE_EVERY === 0 && !(await keepAlive())) return;
    }
    await events.end();
  };
}
