/**
 * The text generation routes of the local watsonx server: checks as the service does them (credentials, `version`,
 * the deployment or the model, the body), then the engine's tokens as one answer or as SSE events. A model the
 * catalog does not list is a 404 `model_not_supported`, a deployment neither id nor serving name of one it knows a
 * 404 `deployment_does_not_exist`, both in the service's words (docs/watsonx.md).
 */
import { DEFAULT_MAX_NEW_TOKENS } from '../../../src/emulator/engine/index.js';
import { applyFault, sendAnswer } from '../../../src/emulator/core/apply-fault.js';
import { EventStream, type StreamFaultWording } from '../../../src/emulator/core/event-stream.js';
import { takeFault } from '../../../src/emulator/core/take-fault.js';
import type { RouteContext, RouteHandler } from '../../../src/emulator/core/router.js';
import {
  deploymentDoesNotExist,
  modelNoSupportForFunction,
  modelNotSupported,
  sendWatsonxError,
  watsonxErrorBody,
  watsonxFaultWording,
} from './errors.js';
import { findDeployment, findModel, hasFunction, LOCAL_DEPLOYMENT_MODEL } from './model-catalog.js';
import {
  firstStreamEvent,
  stepStreamEvent,
  textGenResponse,
  unspecifiedMaxTokenWarning,
  type ResponseMeta,
} from './response.js';
import { validateGenerateBody, type ChatProperties, type GenerateKind } from './validate.js';
import { watsonxPrelude } from './prelude.js';

export { LOCAL_DEPLOYMENT_MODEL };

const streamWording: StreamFaultWording = {
  errorEvent: () => ({
    event: 'error',
    data: JSON.stringify(
      watsonxErrorBody(500, [
        {
          code: 'internal_server_error',
          message: 'The model server stopped while generating; the partial output is incomplete',
        },
      ]),
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
  return input.replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.hasOwn(variables, name) ? variables[name]! : whole,
  );
}

/** The prompt the engine continues: the chat's context and earlier turns, then the input. */
function withChat(input: string, chat: ChatProperties | undefined): string {
  if (!chat) return input;
  const turns = (chat.history ?? []).map((t) => t.content);
  return [...(chat.context ? [chat.context] : []), ...turns, input].join('\n');
}

export function generationRoute(kind: GenerateKind, streamRoute: boolean): RouteHandler {
  return async (ctx: RouteContext) => {
    const prelude = watsonxPrelude(ctx, { field: 'input' });
    if (!prelude) return;
    let modelId = LOCAL_DEPLOYMENT_MODEL;
    let templateText: string | undefined;
    if (kind === 'deployment') {
      const idOrName = ctx.params.id ?? '';
      const deployment = findDeployment(idOrName, ctx.server.engine);
      if (!deployment) return sendWatsonxError(ctx.res, 404, [deploymentDoesNotExist(idOrName)]);
      modelId = deployment.baseModel;
      templateText = deployment.templateText;
    }
    const validation = await validateGenerateBody(prelude.json, kind, { inputOptional: templateText !== undefined });
    if (!validation.ok) return sendWatsonxError(ctx.res, 400, validation.errors);
    const body = validation.body;
    if (kind === 'foundation') {
      modelId = body.model_id ?? '';
      const model = findModel(modelId, ctx.server.engine);
      const route = streamRoute ? 'text-generation-stream' : 'text-generation';
      if (!model) return sendWatsonxError(ctx.res, 404, [modelNotSupported(modelId, route)]);
      if (!hasFunction(model, 'text_generation'))
        return sendWatsonxError(ctx.res, 400, [modelNoSupportForFunction(modelId, 'text_generation')]);
    }

    const stream = streamRoute || wantsEventStream(ctx.request.headers.accept);
    // Faults hit only requests the service would have served, so a test's 429 never hides a 400.
    const fault = takeFault(ctx, stream);
    if (await applyFault(fault, ctx, watsonxFaultWording(ctx.res))) return;

    const { chat, ...parameters } = body.parameters ?? {};
    const generation = await ctx.server.engine.startGeneration(
      {
        // The service ignores input when the deployment has a template; this one takes a given input as the
        // template to fill (as IBM's SDK examples send it), and the deployment's own template when there is none.
        input: withChat(fillPromptVariables(body.input || (templateText ?? ''), parameters.prompt_variables), chat),
        parameters,
        moderations: body.moderations,
        scoreInput: parameters.return_options?.input_tokens === true,
      },
      { signal: ctx.signal, tokenDelayMs: ctx.server.options.tokenDelayMs },
    );
    const meta: ResponseMeta = {
      modelId,
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
