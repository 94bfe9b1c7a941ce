/** The engine a LocalEngineSettings names; the llama engine (and node-llama-cpp) is loaded only when asked for. */
import type { LocalEngineSettings } from '../../contract/local-engine.js';
import { deterministicEngine } from './deterministic.js';
import type { Engine } from './engine.js';

export async function createEngine(settings: LocalEngineSettings | undefined): Promise<Engine> {
  if (settings === undefined || settings.kind === 'deterministic') return deterministicEngine();
  const { createLlamaEngine } = await import('./llama/engine.js');
  return createLlamaEngine(settings);
}
