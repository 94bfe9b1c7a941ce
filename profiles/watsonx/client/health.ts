/**
 * watsonx health: one authenticated list call of one item. With a space or project, the deployments list (the
 * service checks credentials there); without, the foundation model specs.
 */
import type { HealthOperation } from '../../../src/contract/adapter.js';
import { parseWatsonxPage, watsonxListRequest } from './models.js';
import { jsonText } from '../../common/json-text.js';
import { WATSONX_DEFAULT_API_VERSION } from './request.js';
import { watsonxSettings } from '../settings.js';

export const watsonxHealth: HealthOperation = {
  probes(profile) {
    const { spaceId, projectId } = watsonxSettings(profile);
    const scope = spaceId || projectId ? 'deployments' : 'models';
    const query = { scope, pageSize: 1 } as const;
    return [
      {
        name: scope,
        request: watsonxListRequest(profile, query),
        required: true,
        check: (text) => void parseWatsonxPage(jsonText(text), query, 0),
      },
    ];
  },
  apiVersion: (profile) => profile.apiVersion ?? WATSONX_DEFAULT_API_VERSION,
};
