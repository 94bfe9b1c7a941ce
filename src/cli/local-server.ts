/**
 * The embedded server of a local profile (the built-in `local` profiles, and profiles with an `engine:`): the
 * emulator (src/emulator/) started in-process on 127.0.0.1, on a port of its own, with the profile's engine. The
 * composition root starts it when a command connects to the profile (Context.connect), never while resolving one.
 */
import type { ResolvedProfile } from '../contract/profile.js';

export interface LocalServer {
  url: string;
  close(): Promise<void>;
}

export async function startLocalServer(profile: ResolvedProfile): Promise<LocalServer> {
  const { startServer } = await import('../emulator/core/index.js');
  const { createEngine } = await import('../emulator/engine/create.js');
  return startServer({ host: '127.0.0.1', port: 0, engine: await createEngine(profile.engine) });
}
