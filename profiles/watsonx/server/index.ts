/**
 * The watsonx side of `textgen serve`: text generation (deployments and foundation models,
 * plain and streamed) with the IAM and Cloud Pak for Data token endpoints next to it.
 */
import type { ProtocolModule } from '../../../src/emulator/core/router.js';
import { cpdAuthorize, iamToken } from './auth.js';
import { sendWatsonxError } from './errors.js';
import { generationRoute } from './generate.js';

export const watsonxProtocol: ProtocolModule = {
  name: 'watsonx',
  prefixes: ['/ml/', '/identity/', '/icp4d-api/'],
  routes: [
    {
      method: 'POST',
      pattern: '/ml/v1/deployments/:id/text/generation',
      handler: generationRoute('deployment', false),
    },
    {
      method: 'POST',
      pattern: '/ml/v1/deployments/:id/text/generation_stream',
      handler: generationRoute('deployment', true),
    },
    { method: 'POST', pattern: '/ml/v1/text/generation', handler: generationRoute('foundation', false) },
    { method: 'POST', pattern: '/ml/v1/text/generation_stream', handler: generationRoute('foundation', true) },
    { method: 'POST', pattern: '/identity/token', handler: iamToken, body: 'form' },
    { method: 'POST', pattern: '/icp4d-api/v1/authorize', handler: cpdAuthorize },
  ],
  sendError(ctx, status, code, message, headers) {
    sendWatsonxError(ctx.res, status, [{ code, message }], headers);
  },
};

/**
 * Every watsonx route `serve` answers: generation and tokens first, then the model and task listings, deployments,
 * tokenization, embeddings, chat and reranking.
 */
export async function watsonxEmulator(): Promise<ProtocolModule[]> {
  const [
    { watsonxModelsProtocol },
    { watsonxDeploymentsProtocol },
    { watsonxTokenizeProtocol },
    { watsonxEmbedProtocol },
    { watsonxChatProtocol },
    { watsonxRerankProtocol },
    { watsonxSpacesProtocol },
    { watsonxTimeSeriesProtocol },
  ] = await Promise.all([
    import('./models.js'),
    import('./deployments.js'),
    import('./tokenize.js'),
    import('./embed.js'),
    import('./chat.js'),
    import('./rerank.js'),
    import('./spaces.js'),
    import('./time-series.js'),
  ]);
  return [
    watsonxProtocol,
    watsonxModelsProtocol,
    watsonxDeploymentsProtocol,
    watsonxTokenizeProtocol,
    watsonxEmbedProtocol,
    watsonxChatProtocol,
    watsonxRerankProtocol,
    watsonxSpacesProtocol,
    watsonxTimeSeriesProtocol,
  ];
}
