/** Health of the completions protocols: the authenticated list call (Azure: deployments; OpenAI-compatible: models). */
import type { HealthOperation } from '../../../src/contract/adapter.js';
import { jsonText } from '../../common/json-text.js';
import {
  azureEntry,
  azureDeploymentsRequest,
  dataPage,
  deploymentListingVersion,
  openAiModelEntry,
  openAiModelsRequest,
} from './models.js';

export const azureOpenAiHealth: HealthOperation = {
  probes: (profile) => [
    {
      name: 'deployments',
      request: azureDeploymentsRequest(profile),
      required: true,
      check: (text) => void dataPage(jsonText(text), azureEntry),
    },
  ],
  apiVersion: deploymentListingVersion,
};

export const openAiHealth: HealthOperation = {
  probes: (profile) => [
    {
      name: 'models',
      request: openAiModelsRequest(profile),
      required: true,
      check: (text) => void dataPage(jsonText(text), openAiModelEntry),
    },
  ],
};
