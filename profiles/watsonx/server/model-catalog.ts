/**
 * The catalog (catalog-data.ts) in the service's shapes: foundation model specs (the SDK's `FoundationModel`), tasks
 * (`FoundationModelTask`) and v4 deployment resources (`DeploymentResource`), and the look-ups the routes make — a
 * model by id, a deployment by id or serving name.
 */
import {
  DEPLOYMENTS,
  MODELS,
  TASKS,
  type DeploymentFacts,
  type ModelFacts,
  type ModelFunction,
} from './catalog-data.js';

import type { Engine } from '../../../src/emulator/engine/index.js';

export { LOCAL_DEPLOYMENT_MODEL } from './catalog-data.js';

function spec(m: ModelFacts): Record<string, unknown> {
  const out: Record<string, unknown> = {
    model_id: m.id,
    label: m.label,
    provider: m.provider,
    source: m.source,
    functions: m.functions.map((id) => ({ id })),
    short_description: m.description,
    input_tier: m.tier,
    output_tier: m.tier,
    number_params: m.params,
    model_limits: { max_sequence_length: m.contextTokens },
    lifecycle: m.lifecycle.map((p) => ({
      id: p.id,
      start_date: p.since,
      ...(p.alternatives ? { alternative_model_ids: p.alternatives } : {}),
    })),
  };
  if (m.tasks) out.tasks = m.tasks.map((id) => ({ id }));
  return out;
}

/** Every model with its spec, sorted by model_id as the service sorts its listing. */
export const CATALOG: ReadonlyArray<{ facts: ModelFacts; spec: Record<string, unknown> }> = [...MODELS]
  .sort((a, b) => (a.id < b.id ? -1 : 1))
  .map((facts) => ({ facts, spec: spec(facts) }));

/** The specs as the service writes them, in the listing's order. */
export const FOUNDATION_MODEL_SPECS: readonly Record<string, unknown>[] = CATALOG.map((c) => c.spec);

/** The tasks as `GET /ml/v1/foundation_model_tasks` lists them. */
export const FOUNDATION_MODEL_TASKS: readonly Record<string, unknown>[] = TASKS.map((t, i) => ({ ...t, rank: i + 1 }));

const byId = new Map(MODELS.map((m) => [m.id, m]));

/** The model a llama engine serves, as the catalog would list it (undefined for the deterministic engine). */
export function servedModel(engine: Engine): ModelFacts | undefined {
  const id = engine.modelName;
  if (id === undefined) return undefined;
  return {
    id,
    label: id,
    provider: 'textgen',
    source: 'GGUF model file',
    description: `${id}, a GGUF model served by textgen's llama engine`,
    params: 'unknown',
    functions: ['text_generation', 'text_chat', 'embedding'],
    contextTokens: engine.contextWindow,
    ...(engine.embeddingDimensions !== undefined ? { dimensions: engine.embeddingDimensions } : {}),
    tier: 'class_1',
    lifecycle: [{ id: 'available', since: '2026-01-01' }],
    from: { listed: [], limits: [], functions: [], lifecycle: [], tier: [], params: [] },
  };
}

/** Every model with its spec, the served model (if any) first. */
export function catalogOf(engine: Engine): ReadonlyArray<{ facts: ModelFacts; spec: Record<string, unknown> }> {
  const served = servedModel(engine);
  return served ? [{ facts: served, spec: spec(served) }, ...CATALOG] : CATALOG;
}

/** A model the service lists, or the engine's served model, or undefined. */
export function findModel(id: string, engine?: Engine): ModelFacts | undefined {
  if (engine && id === engine.modelName) return servedModel(engine);
  return byId.get(id);
}

export function hasFunction(model: ModelFacts, fn: ModelFunction): boolean {
  return model.functions.includes(fn);
}

/** A deployment known by its id or its serving name, as the inference routes take either. */
export function findDeployment(idOrName: string, engine?: Engine): DeploymentFacts | undefined {
  return deploymentsOf(engine).find((d) => d.id === idOrName || d.servingName === idOrName);
}

/** The deployments every space holds: the served model's own (id and serving name = its name) first. */
export function deploymentsOf(engine: Engine | undefined): readonly DeploymentFacts[] {
  const id = engine?.modelName;
  if (id === undefined) return DEPLOYMENTS;
  const served: DeploymentFacts = {
    id,
    name: id,
    servingName: id,
    description: `The GGUF model ${id}, served by textgen's llama engine`,
    baseModel: id,
    assetType: 'custom_foundation_model',
  };
  return [served, ...DEPLOYMENTS];
}

/** Fixed, so answers are the same every time. */
const CREATED_AT = '2024-05-01T09:00:00.000Z';

export type Scope = { space_id: string } | { project_id: string };

/** One deployment as `GET /ml/v4/deployments[/{id}]` answers it; `origin` makes its inference URLs absolute. */
export function deploymentResource(d: DeploymentFacts, scope: Scope, origin: string): Record<string, unknown> {
  const base = (idOrName: string) => `${origin}/ml/v1/deployments/${idOrName}/text`;
  return {
    metadata: {
      id: d.id,
      name: d.name,
      description: d.description,
      created_at: CREATED_AT,
      modified_at: CREATED_AT,
      owner: 'IBMid-local',
      ...(d.tags !== undefined ? { tags: [...d.tags] } : {}),
      ...scope,
    },
    entity: {
      online: { parameters: { serving_name: d.servingName } },
      ...(d.promptTemplate !== undefined ? { prompt_template: { id: d.promptTemplate } } : {}),
      base_model_id: d.baseModel,
      deployed_asset_type: d.assetType,
      status: {
        state: 'ready',
        inference: [
          { url: `${base(d.id)}/generation` },
          { url: `${base(d.id)}/generation_stream`, sse: true },
          { url: `${base(d.servingName)}/generation`, uses_serving_name: true },
          { url: `${base(d.servingName)}/generation_stream`, sse: true, uses_serving_name: true },
        ],
      },
    },
  };
}

/** The deployments of one space or project (every space holds the same ones). */
export function deploymentResources(scope: Scope, origin: string, engine?: Engine): Record<string, unknown>[] {
  return deploymentsOf(engine).map((d) => deploymentResource(d, scope, origin));
}

/** Embedding models: the length of each vector. */
export function embeddingDimensions(model: ModelFacts): number {
  if (model.dimensions === undefined)
    throw new Error(`${model.id} is an embedding model without dimensions in catalog-data.ts`);
  return model.dimensions;
}
