/**
 * Azure OpenAI's v1 API on the client side: a profile with `api_version: v1` (or `--api-version v1`) calls
 * `{resource}/openai/v1/…` — chat completions, completions, embeddings, models, responses — with no api-version query
 * and the deployment name as `model` in the body, instead of `/openai/deployments/{deployment}/…?api-version=DATE`.
 */
import type { ResolvedProfile } from '../../../src/contract/profile.js';
import { azureSettings } from '../settings.js';

/** The api_version value that selects the v1 routes. */
export const AZURE_V1_API_VERSION = 'v1';

/** The resource's endpoint: users paste it bare, with Azure's `/openai` segment, or with `/openai/v1`. */
export function azureEndpoint(profile: ResolvedProfile): string {
  return profile.url.replace(/\/+$/, '').replace(/\/openai(\/v1)?$/, '');
}

/** True when the profile's completions, embeddings and listings go to the v1 routes. */
export function azureUsesV1(profile: ResolvedProfile): boolean {
  return profile.apiVersion === AZURE_V1_API_VERSION;
}

/** Chat's own api-version (`chat_api_version`, else the profile's) says v1. */
export function azureChatUsesV1(profile: ResolvedProfile): boolean {
  return (azureSettings(profile).chatApiVersion ?? profile.apiVersion) === AZURE_V1_API_VERSION;
}

/** `{endpoint}/openai/v1{path}`. */
export function azureV1Url(profile: ResolvedProfile, path: string): string {
  return `${azureEndpoint(profile)}/openai/v1${path}`;
}
