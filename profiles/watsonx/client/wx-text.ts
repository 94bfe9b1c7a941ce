/**
 * The requests of the cpdctl `text …` mirror commands (src/contract/adapter-operations/wx-text.ts): the user's body
 * to `/ml/v1/<route>?version=`, with the profile's space or project.
 */
import type { WxTextOperation } from '../../../src/contract/adapter.js';
import { WATSONX_DEFAULT_API_VERSION } from './request.js';
import { watsonxScope } from './scope.js';

export const watsonxWxText: WxTextOperation = {
  request(route, body, profile, what) {
    const version = profile.apiVersion ?? WATSONX_DEFAULT_API_VERSION;
    const stream = route.endsWith('_stream');
    return {
      method: 'POST',
      url: `${profile.url}/ml/v1/${route}?version=${encodeURIComponent(version)}`,
      headers: { 'content-type': 'application/json', accept: stream ? 'text/event-stream' : 'application/json' },
      body: JSON.stringify({ ...body, ...watsonxScope(profile, what) }),
    };
  },
};
