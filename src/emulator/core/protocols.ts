import { alephAlphaProtocol } from '../../../profiles/aleph-alpha/server/index.js';
import { azureOpenAiProtocol } from '../../../profiles/azure-openai/server/index.js';
import { openInferenceProtocol } from '../../../profiles/open-inference/server/index.js';
import { watsonxProtocol } from '../../../profiles/watsonx/server/index.js';
import { watsonxModelsProtocol } from '../../../profiles/watsonx/server/models.js';
import { azureOpenAiModelsProtocol } from '../../../profiles/azure-openai/server/models.js';
import { openInferenceRepositoryProtocol } from '../../../profiles/open-inference/server/repository.js';
import { alephAlphaTasksProtocol } from '../../../profiles/aleph-alpha/server/tasks.js';
import { watsonxTokenizeProtocol } from '../../../profiles/watsonx/server/tokenize.js';
import { alephAlphaTokenizeProtocol } from '../../../profiles/aleph-alpha/server/tokenize.js';
import { watsonxEmbedProtocol } from '../../../profiles/watsonx/server/embed.js';
import { azureOpenAiEmbedProtocol } from '../../../profiles/azure-openai/server/embed.js';
import { alephAlphaEmbedProtocol } from '../../../profiles/aleph-alpha/server/embed.js';
import type { ProtocolModule } from './router.js';

/** Every wire protocol `serve` speaks, each on its usual paths (one module per protocol and operation family). */
export const ALL_PROTOCOLS: ProtocolModule[] = [
  watsonxProtocol,
  azureOpenAiProtocol,
  alephAlphaProtocol,
  openInferenceProtocol,
  watsonxModelsProtocol,
  azureOpenAiModelsProtocol,
  openInferenceRepositoryProtocol,
  alephAlphaTasksProtocol,
  watsonxTokenizeProtocol,
  alephAlphaTokenizeProtocol,
  watsonxEmbedProtocol,
  azureOpenAiEmbedProtocol,
  alephAlphaEmbedProtocol,
];
