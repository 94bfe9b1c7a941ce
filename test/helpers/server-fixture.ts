import { afterAll, afterEach, beforeAll } from 'vitest';
import { startServer, type RunningServer, type ServerOptions } from '../../src/emulator/core/index.js';
import { makeHome } from './run-cli.js';
import { expectValidWire } from './wire.js';

export interface ServerFixture {
  /** The running server (set in beforeAll). */
  readonly server: RunningServer;
  /** A throw-away HOME for the CLI runs of this file. */
  readonly home: ReturnType<typeof makeHome>;
}

/**
 * One embedded server (every protocol) for a test file: started before, closed after; after each test every
 * recorded request is checked against its protocol's contract, then the log and the fault queue are cleared.
 */
export function useServer(options: ServerOptions = {}): ServerFixture {
  const home = makeHome();
  let server: RunningServer | undefined;
  beforeAll(async () => {
    // The wire check below reads every request, so this server keeps them (a ring far larger than any file needs).
    server = await startServer({ requestLog: { max: 10_000 }, ...options });
  });
  afterAll(async () => {
    await server?.close();
    home.cleanup();
  });
  afterEach(async () => {
    if (!server) return;
    await expectValidWire(server.requests);
    server.requests.length = 0;
    server.faults.length = 0;
  });
  return {
    get server() {
      if (!server) throw new Error('the server starts in beforeAll');
      return server;
    },
    home,
  };
}
