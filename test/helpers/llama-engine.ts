/**
 * For the tests that run a real llama.cpp (test/llama/): whether node-llama-cpp is installed (`npm run
 * engine:install`), and the tiny "successor" model they write themselves. Without the package those tests skip,
 * saying so on one line; with TEXTGEN_REQUIRE_ENGINE=1 (CI) its absence fails them instead.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { engineHolderEntry } from '../../src/emulator/engine/llama/binding.js';
import { writeSuccessorModel } from './gguf-successor.js';

export const SKIP_LINE = 'SKIPPED: node-llama-cpp is not installed (npm run engine:install)';

/** True when the engine can be loaded; prints the skip line (or throws, when it is required) otherwise. */
export function engineAvailable(): boolean {
  if (engineHolderEntry() !== undefined) return true;
  if (process.env.TEXTGEN_REQUIRE_ENGINE === '1')
    throw new Error(`TEXTGEN_REQUIRE_ENGINE=1 but ${SKIP_LINE.replace(/^SKIPPED: /, '')}`);
  console.log(SKIP_LINE);
  return false;
}

/** A folder holding the successor model (`model.gguf`, served as "model"); remove it with cleanup(). */
export function successorModelDir(contextLength = 256): { dir: string; path: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'textgen-llama-'));
  const path = writeSuccessorModel(join(dir, 'successor.gguf'), { contextLength });
  return { dir, path, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The settings every test uses: one thread (more than the cores is dramatically slower), a small context. */
export const TEST_ENGINE = { threads: 1, contextSize: 256, gpu: 'off' as const, parallel: 2 };
