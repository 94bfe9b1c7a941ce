import { describe, expect, it } from 'vitest';
import { DEPLOYMENTS, MODELS, SOURCES, TASKS } from '../../profiles/watsonx/server/catalog-data.js';
import { findDeployment, findModel } from '../../profiles/watsonx/server/model-catalog.js';

/** The one data file behind serve's watsonx catalog (docs/watsonx.md): whole, sourced, consistent. */
describe('the watsonx catalog data', () => {
  it("has each model once, and the current ids IBM's SDK examples and tests use", () => {
    const ids = MODELS.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of [
      'ibm/granite-4-h-small',
      'ibm/slate-125m-english-rtrvr-v2',
      'ibm/granite-3-8b-instruct',
      'meta-llama/llama-3-3-70b-instruct',
      'mistralai/mistral-small-3-1-24b-instruct-2503',
      'openai/gpt-oss-120b',
      'ibm/granite-ttm-512-96-r2',
    ]) {
      expect(findModel(id), id).toBeDefined();
    }
  });

  it.each(MODELS.map((m) => [m.id, m] as const))(
    '%s: every group of facts cites a source, and only sources that exist',
    (_id, m) => {
      for (const [group, keys] of Object.entries(m.from)) {
        expect(keys.length, group).toBeGreaterThan(0);
        for (const key of keys) expect(Object.hasOwn(SOURCES, key), `${group}: ${key}`).toBe(true);
      }
      expect(
        m.from.listed.some((k) => k.startsWith('listing-')),
        'the service lists it',
      ).toBe(true);
    },
  );

  it.each(MODELS.map((m) => [m.id, m] as const))(
    '%s: lifecycle phases in order, embedding models with dimensions',
    (_id, m) => {
      const days = m.lifecycle.map((p) => p.since);
      expect(days).toEqual([...days].sort());
      expect(m.lifecycle[0]!.id).toBe('available');
      expect(m.dimensions !== undefined, 'dimensions exactly when it embeds').toBe(m.functions.includes('embedding'));
      expect(m.contextTokens).toBeGreaterThan(0);
    },
  );

  it('every source has a URL, a day and what it says', () => {
    for (const [key, source] of Object.entries(SOURCES)) {
      expect(source.seen, key).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(source.url.length, key).toBeGreaterThan(0);
      expect(source.says.length, key).toBeGreaterThan(10);
    }
  });

  it('tasks are unique; deployments are known by id and by serving name, and name models of the catalog or the local engine', () => {
    expect(new Set(TASKS.map((t) => t.task_id)).size).toBe(TASKS.length);
    for (const d of DEPLOYMENTS) {
      expect(findDeployment(d.id)).toBe(d);
      expect(findDeployment(d.servingName)).toBe(d);
      expect(d.baseModel === 'textgen/local-demo' || findModel(d.baseModel) !== undefined, d.baseModel).toBe(true);
    }
    expect(findDeployment('nope')).toBeUndefined();
  });
});
