import type { GenerateOperation } from '../../../src/contract/adapter.js';
import { openInferenceCapabilities } from '../capabilities.js';
import { buildOpenInferenceGenerateRequest } from './request.js';
import { parseOpenInferenceError, parseOpenInferenceGenerateResponse } from './response.js';
import { createOpenInferenceStreamDecoder } from './stream.js';

/** The Open Inference Protocol generate extension (NVIDIA Triton, KServe, Hugging Face TGI). */
export const openInferenceGenerate: GenerateOperation = {
  kind: 'open-inference',
  displayName: 'Open Inference',
  capabilities: openInferenceCapabilities,
  build: buildOpenInferenceGenerateRequest,
  parse: parseOpenInferenceGenerateResponse,
  decoder: createOpenInferenceStreamDecoder,
  parseError: parseOpenInferenceError,
};
