/**
 * watsonx health: one authenticated list call of one item. With a space or project, the deployments list (the
 * service checks credentials there); without, the foundation model specs.
 */
import type { HealthOperation } from '../../types.js';
import { watsonxListRequest } from './models.js';
import { WATSONX_DEFAULT_API_VERSION } from './request.js';

export const watsonxHealth: HealthOperation = {
  probes(profile) {
    const scope = profile.spaceId || profile.projectId ? 'deployments' : 'models';
    return [{ name: scope, request: watsonxListRequest(profile, { scope, pageSize: 1 }), required: true }];
  },
  apiVersion: (profile) => profile.apiVersion ?? WATSONX_DEFAULT_API_VERSION,
};
