/**
 * The completions side of `textgen serve`: Azure OpenAI's deployment route and the OpenAI-compatible `/v1` route,
 * plain and streamed. Content filter triggers: see server-content-filter.ts.
 */
import type { ProtocolModule } from '../../../src/emulator/core/router.js';
import { completionsRoute } from './completions.js';
import { sendCompletionsError } from './errors.js';

export const azureOpenAiProtocol: ProtocolModule = {
  name: 'azure-openai',
  prefixes: ['/openai/', '/v1/'],
  routes: [
    { method: 'POST', pattern: '/openai/deployments/:deployment/completions', handler: completionsRoute('azure') },
    { method: 'POST', pattern: '/v1/completions', handler: completionsRoute('openai') },
  ],
  sendError(ctx, status, code, message, headers) {
    sendCompletionsError(ctx, status, { code, message }, headers);
  },
};

/**
 * Every route `serve` answers for Azure OpenAI and OpenAI-compatible clients (`/openai/…` and `/v1/…`): completions,
 * listings, embeddings, chat, the Responses API, Azure's v1 API over the deployment routes, and the
 * OpenAI-compatible `/v1/rerank` (vLLM's).
 */
export async function azureOpenAiEmulator(): Promise<ProtocolModule[]> {
  const [
    { azureOpenAiModelsProtocol },
    { azureOpenAiEmbedProtocol },
    { azureOpenAiChatProtocol },
    { responsesProtocol },
    { azureV1Protocol },
    { openAiRerankProtocol },
  ] = await Promise.all([
    import('./models.js'),
    import('./embed.js'),
    import('./chat.js'),
    import('./responses.js'),
    import('./azure-v1.js'),
    import('./rerank.js'),
  ]);
  const deploymentRoutes = [azureOpenAiProtocol, azureOpenAiEmbedProtocol, azureOpenAiChatProtocol];
  return [
    azureOpenAiProtocol,
    azureOpenAiModelsProtocol,
    azureOpenAiEmbedProtocol,
    azureOpenAiChatProtocol,
    responsesProtocol,
    azureV1Protocol(deploymentRoutes),
    openAiRerankProtocol,
  ];
}
