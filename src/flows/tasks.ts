/**
 * The Aleph Alpha tasks — evaluate, explain, qa, summarize: which adapter has which task. The request and result
 * types are in src/contract/adapter-operations/tasks.ts; an adapter lists its tasks in its `tasks` loaders.
 */
import type { ProviderKind } from '../contract/profile.js';
import { adapterFor, kindsWith } from '../../profiles/registry.js';
import type { TaskName, TaskOperations } from '../contract/adapter.js';

/** The provider's module for a task, or undefined when the provider does not have the task. */
export async function loadTaskOperation<T extends TaskName>(
  task: T,
  kind: ProviderKind,
): Promise<TaskOperations[T] | undefined> {
  const load = adapterFor(kind).tasks?.[task];
  return load ? (load() as Promise<TaskOperations[T]>) : undefined;
}

/** The providers that have a task, for the message that names them. */
export function providersWith(task: TaskName): ProviderKind[] {
  return kindsWith((adapter) => adapter.tasks?.[task] !== undefined);
}
