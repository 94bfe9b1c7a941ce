import type { GenerateOperation } from '../../../src/contract/adapter.js';
import { azureOpenAiCapabilities } from '../capabilities.js';
import { parseCompletionsError } from './errors.js';
import { AZURE_DEFAULT_API_VERSION, buildAzureCompletionsRequest, buildOpenAiCompletionsRequest } from './request.js';
import { parseCompletionResponse } from './response.js';
import { createCompletionsStreamDecoder } from './stream.js';

/** Azure OpenAI completions: the deployment in the path, `api-version` in the query (docs/protocols/azure-openai.md). */
export const azureOpenAiGenerate: GenerateOperation = {
  kind: 'azure-openai',
  displayName: 'Azure OpenAI',
  defaultApiVersion: AZURE_DEFAULT_API_VERSION,
  capabilities: azureOpenAiCapabilities,
  build: buildAzureCompletionsRequest,
  parse: (body, request) => parseCompletionResponse('azure-openai', body, request),
  decoder: (request) => createCompletionsStreamDecoder('azure-openai', request),
  parseError: (status, bodyText, headers) => parseCompletionsError('azure-openai', status, bodyText, headers),
};

/**
 * The same wire format on `/v1/completions` (OpenAI, vLLM, llama.cpp's server, Ollama): no API version, and the
 * model in the body because these servers route by it.
 */
export const openAiGenerate: GenerateOperation = {
  kind: 'openai',
  displayName: 'OpenAI-compatible',
  capabilities: azureOpenAiCapabilities,
  build: buildOpenAiCompletionsRequest,
  parse: (body, request) => parseCompletionResponse('openai', body, request),
  decoder: (request) => createCompletionsStreamDecoder('openai', request),
  parseError: (status, bodyText, headers) => parseCompletionsError('openai', status, bodyText, headers),
};
