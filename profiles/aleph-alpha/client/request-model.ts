import type { GenerateTarget } from '../../../src/contract/adapter.js';

/** AA answers carry only `model_version`: the model the request named fills `model_id`. */
export function modelOf(target: GenerateTarget | undefined): string | undefined {
  return target?.model ?? target?.deployment;
}
