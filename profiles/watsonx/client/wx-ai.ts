/**
 * The cpdctl mirror commands' requests (src/contract/adapter-operations/wx-ai.ts): the user's body to
 * `/ml/v1/<route>?version=`, with the profile's space or project when the flags gave neither.
 */
import type { WxAiOperation } from '../../../src/contract/adapter.js';
import { WATSONX_DEFAULT_API_VERSION } from './request.js';
import { watsonxScope } from './scope.js';

export const watsonxWxAi: WxAiOperation = {
  request(route, body, profile, what) {
    const scoped =
      body.space_id !== undefined || body.project_id !== undefined ? body : { ...body, ...watsonxScope(profile, what) };
    const version = profile.apiVersion ?? WATSONX_DEFAULT_API_VERSION;
    const stream = route.endsWith('_stream');
    return {
      method: 'POST',
      url: `${profile.url}/ml/v1/${route}?version=${encodeURIComponent(version)}`,
      headers: { 'content-type': 'application/json', accept: stream ? 'text/event-stream' : 'application/json' },
      body: JSON.stringify(scoped),
    };
  },
  scope(profile, given, what) {
    if (given.space_id !== undefined || given.project_id !== undefined) {
      const fields: Record<string, string> = {};
      if (given.space_id !== undefined) fields.space_id = given.space_id;
      if (given.project_id !== undefined) fields.project_id = given.project_id;
      return fields;
    }
    return watsonxScope(profile, what);
  },
};
