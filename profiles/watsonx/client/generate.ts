import type { GenerateOperation } from '../../../src/contract/adapter.js';
import { watsonxCapabilities } from '../capabilities.js';
import { buildWatsonxGenerateRequest, WATSONX_DEFAULT_API_VERSION } from './request.js';
import { parseWatsonxError, parseWatsonxGenerateResponse } from './response.js';
import { createWatsonxStreamDecoder } from './stream.js';

/** The watsonx.ai wire protocol (IBM Cloud and Cloud Pak for Data). */
export const watsonxGenerate: GenerateOperation = {
  kind: 'watsonx',
  displayName: 'watsonx.ai',
  defaultApiVersion: WATSONX_DEFAULT_API_VERSION,
  capabilities: watsonxCapabilities,
  build: buildWatsonxGenerateRequest,
  parse: parseWatsonxGenerateResponse,
  decoder: createWatsonxStreamDecoder,
  parseError: parseWatsonxError,
};
