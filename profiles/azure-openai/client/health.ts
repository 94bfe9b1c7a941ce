/** Health of the completions protocols: the authenticated list call (Azure: deployments; OpenAI-compatible: models). */
import type { HealthOperation } from '../../types.js';
import { azureDeploymentsRequest, deploymentListingVersion, openAiModelsRequest } from './models.js';

export const azureOpenAiHealth: HealthOperation = {
  probes: (profile) => [{ name: 'deployments', request: azureDeploymentsRequest(profile), required: true }],
  apiVersion: deploymentListingVersion,
};

export const openAiHealth: HealthOperation = {
  probes: (profile) => [{ name: 'models', request: openAiModelsRequest(profile), required: true }],
};
