import { afterAll, afterEach, beforeAll } from 'vitest';
import { startServer, type RunningServer, type ServerOptions } from '../../src/server/index.js';
import { makeHome } from './run-cli.js';
import { expectValidWatsonxWire } from './wire.js';

export interface ServerFixture {
  /** The running server (set in beforeAll). */
  readonly server: RunningServer;
  /** A throw-away HOME for the CLI runs of this file. */
  readonly home: ReturnType<typeof makeHome>;
}

/**
 * One embedded server for a test file: started before, closed after; after each test every recorded
 * request is checked against the watsonx contract, then the log and the fault queue are cleared.
 */
export function useWatsonxServer(options: ServerOptions = {}): ServerFixture {
  const home = makeHome();
  let server: RunningServer | undefined;
  beforeAll(async () => {
    server = await startServer(options);
  });
  afterAll(async () => {
    await server?.close();
    home.cleanup();
  });
  afterEach(() => {
    if (!server) return;
    expectValidWatsonxWire(server.requests);
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
