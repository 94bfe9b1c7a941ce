/**
 * The text generation routes of the local watsonx server: checks as the service does them
 * (credentials, `version`, body), then the engine's tokens as one answer or as SSE events.
 */
import { DEFAULT_MAX_NEW_TOKENS, startGeneration } from '../../../src/emulator/engine/index.js';
import { applyFault, sendAnswer } from '../../../src/emulator/core/apply-fault.js';
import { EventStream, type StreamFaultWording } from '../../../src/emulator/core/event-stream.js';
import { takeFault } from '../../../src/emulator/core/take-fault.js';
import type { RouteContext, RouteHandler } from '../../../src/emulator/core/router.js';
import { sendWatsonxError, watsonxErrorBody, watsonxFaultWording } from './errors.js';
import { firstStreamEvent, stepStreamEvent, textGenResponse, unspecifiedMaxTokenWarning, type ResponseMeta } from './response.js';
import { validateGenerateBody, type GenerateKind } from './validate.js';
import { watsonxPrelude } from './prelude.js';

/** The model every local deployment serves. */
export const LOCAL_DEPLOYMENT_MODEL = 'textgen/local-demo';


const streamWording: StreamFaultWording = {
  errorEvent: () => ({
    event: 'error',
    data: JSON.stringify(
      watsonxErrorBody(500, [{ code: 'internal_server_error', message: 'The model server stopped while generating; the partial output is incomplete' }]),
    ),
  }),
  malformedEvent: () => ({ event: 'message', data: '{"model_id":"textgen/local-demo","results":[{"generated_text":' }),
};

/** A plain route answers with an event stream only when the client asks for nothing else. */
function wantsEventStream(accept: string | undefined): boolean {
  if (!accept) return false;
  const types = accept.split(',').map((t) => t.split(';')[0]!.trim().toLowerCase());
  return types.includes('text/event-stream') && !types.includes('application/json');
}

/** Fills `{name}` placeholders of a prompt-template deployment. */
function fillPromptVariables(input: string, variables: Record<string, string> | undefined): string {
  if (!variables) return input;
  return input.replace(/\{(\w+)\}/g, (whole, name: string) => (Object.hasOwn(variables, name) ? variables[name]! : whole));
}

export function generationRoute(kind: GenerateKind, streamRoute: boolean): RouteHandler {
  return async (ctx: RouteContext) => {
    const prelude = watsonxPrelude(ctx, { field: 'input' });
    if (!prelude) return;
    const validation = await validateGenerateBody(prelude.json, kind);
    if (!validation.ok) return sendWatsonxError(ctx.res, 400, validation.errors);
    const body = validation.body;

    const stream = streamRoute || wantsEventStream(ctx.request.headers.accept);
    // Faults hit only requests the service would have served, so a test's 429 never hides a 400.
    const fault = takeFault(ctx, stream);
    if (await applyFault(fault, ctx, watsonxFaultWording(ctx.res))) return;

    const parameters = body.parameters ?? {};
    const generation = await startGeneration(
      { input: fillPromptVariables(body.input, parameters.prompt_variables), parameters, moderations: body.moderations },
      { signal: ctx.signal, tokenDelayMs: ctx.server.options.tokenDelayMs },
    );
    const meta: ResponseMeta = {
      modelId: body.model_id ?? LOCAL_DEPLOYMENT_MODEL,
      returnOptions: parameters.return_options,
      warnings: parameters.max_new_tokens === undefined ? [unspecifiedMaxTokenWarning(DEFAULT_MAX_NEW_TOKENS)] : [],
    };

    if (!stream) {
      for await (const step of generation) void step;
      await sendAnswer(ctx, fault, textGenResponse(generation.summary(), meta));
      return;
    }
    const events = new EventStream(ctx, fault, streamWording);
    events.open();
    let id = 0;
    const send = (data: unknown) => events.send({ id: String(++id), event: 'message', data: JSON.stringify(data) });
    if (!(await send(firstStreamEvent(generation, meta)))) return;
    for await (const step of generation) {
      if (!(await send(stepStreamEvent(step, generation, meta)))) return;
    }
    await events.end();
  };
}
