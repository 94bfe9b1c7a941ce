import { expect } from 'vitest';
import type { RecordedRequest } from '../../src/server/index.js';
import {
  watsonxFoundationGenerateRequestSchema,
  watsonxGenerateRequestSchema,
} from '../contract/watsonx-schemas.js';

const DEPLOYMENT_GENERATE = /^\/ml\/v1\/deployments\/[^/]+\/text\/generation(_stream)?$/;
const FOUNDATION_GENERATE = /^\/ml\/v1\/text\/generation(_stream)?$/;

/**
 * Every request a test made must be a valid watsonx request (specs/watsonx.md): the right path and
 * query, headers, and a body that passes the strict request schema.
 */
export function expectValidWatsonxWire(requests: RecordedRequest[]): void {
  for (const r of requests) {
    const where = `${r.method} ${r.path}`;
    if (DEPLOYMENT_GENERATE.test(r.path) || FOUNDATION_GENERATE.test(r.path)) {
      expect(r.method, where).toBe('POST');
      expect(r.query.version, `${where}: version= query`).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(r.headers['content-type'], where).toMatch(/^application\/json/);
      const streaming = r.path.endsWith('_stream');
      expect(r.headers.accept, where).toBe(streaming ? 'text/event-stream' : 'application/json');
      const schema = DEPLOYMENT_GENERATE.test(r.path) ? watsonxGenerateRequestSchema : watsonxFoundationGenerateRequestSchema;
      const parsed = schema.safeParse(r.json);
      expect(parsed.success, `${where}: ${parsed.success ? '' : JSON.stringify(parsed.error.issues)}`).toBe(true);
    } else if (r.path === '/identity/token') {
      expect(r.method).toBe('POST');
      expect(r.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
      const form = new URLSearchParams(r.body);
      expect(form.get('grant_type')).toBe('urn:ibm:params:oauth:grant-type:apikey');
      expect(form.get('apikey')).toBeTruthy();
    } else if (r.path === '/icp4d-api/v1/authorize') {
      expect(r.method).toBe('POST');
      expect(r.headers['content-type']).toMatch(/^application\/json/);
      const body = r.json as Record<string, unknown>;
      expect(typeof body.username).toBe('string');
      expect(('api_key' in body) !== ('password' in body), 'exactly one of api_key/password').toBe(true);
    } else {
      throw new Error(`unexpected request ${where}`);
    }
  }
}

/** The generation requests only. */
export function generationRequests(requests: RecordedRequest[]): RecordedRequest[] {
  return requests.filter((r) => DEPLOYMENT_GENERATE.test(r.path) || FOUNDATION_GENERATE.test(r.path));
}
