/**
 * The settings of the engine behind the embedded server (`serve --engine …`, or a profile's `engine:` block), as
 * plain data: the command line and the config file produce them, src/emulator/engine/create.ts turns them into an
 * engine. A leaf module, so the config layer and the emulator can both import it.
 */
import { basename } from 'node:path';

export const ENGINE_KINDS = ['deterministic', 'llama'] as const;

export type LocalEngineSettings =
  | { kind: 'deterministic' }
  | {
      kind: 'llama';
      /** The GGUF model file, absolute. */
      modelPath: string;
      /** The name every route serves the model under. */
      modelName: string;
      threads?: number | undefined;
      contextSize?: number | undefined;
      gpu?: 'auto' | 'off' | undefined;
      parallel?: number | undefined;
    };

/** The name a model file is served under when none is given: its base name without `.gguf`. */
export function servedModelName(modelPath: string): string {
  return basename(modelPath).replace(/\.gguf$/i, '');
}
