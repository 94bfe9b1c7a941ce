import { alephAlphaProtocol } from '../../profiles/aleph-alpha/server.js';
import { azureOpenAiProtocol } from '../../profiles/azure-openai/server.js';
import { openInferenceProtocol } from '../../profiles/open-inference/server.js';
import { watsonxProtocol } from '../../profiles/watsonx/server.js';
import type { ProtocolModule } from './router.js';

/** Every wire protocol `serve` speaks, each on its usual paths (one module per protocol and operation family). */
export const ALL_PROTOCOLS: ProtocolModule[] = [
  watsonxProtocol,
  azureOpenAiProtocol,
  alephAlphaProtocol,
  openInferenceProtocol,
];
