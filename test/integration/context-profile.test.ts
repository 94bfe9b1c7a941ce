/**
 * The context a command runs with (src/cli/context-factory.ts): resolving a profile only reads config, starting a
 * local profile's embedded server is the explicit `connect` step, and the HTTP client and authenticator are kept per
 * profile, not the first one ever asked for.
 */
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { createContext, type ProcessLike } from '../../src/cli/context-factory.js';
import type { Context } from '../../src/context.js';
import type { GlobalOptions } from '../../src/global-options.js';
import { makeHome } from '../helpers/run-cli.js';

const home = makeHome();
afterAll(() => home.cleanup());

function context(globals: GlobalOptions): Context {
  const io: ProcessLike = {
    env: { ...home.env },
    cwd: home.dir,
    stdin: new PassThrough(),
    stdout: new PassThrough(),
    stderr: new PassThrough(),
  };
  return createContext(io, globals, new AbortController().signal, []);
}

describe('Context.profile() and connect()', () => {
  it('profile() of a local profile starts nothing; connect() starts its server once and fills in the URL', async () => {
    const ctx = context({ profile: 'local' });
    try {
      const profile = await ctx.profile();
      expect(profile.local).toBe(true);
      expect(profile.url).toBe('');
      const connected = await ctx.connect(profile);
      expect(connected.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(profile.url).toBe('');
      expect(await ctx.connect(profile)).toBe(connected);
      const answer = await fetch(`${connected.url}/ml/v1/foundation_model_specs?version=2024-05-01`);
      expect(answer.status).toBe(200);
    } finally {
      await ctx.dispose();
    }
  });

  it('connect() with --dry-run points at where `textgen serve` listens, and starts nothing', async () => {
    const ctx = context({ profile: 'local', dryRun: true });
    try {
      expect((await ctx.connect(await ctx.profile())).url).toBe('http://127.0.0.1:8080');
    } finally {
      await ctx.dispose();
    }
  });

  it('connect() leaves a remote profile as it is', async () => {
    const ctx = context({ provider: 'openai', url: 'http://127.0.0.1:9' });
    try {
      const profile = await ctx.profile();
      expect(await ctx.connect(profile)).toBe(profile);
    } finally {
      await ctx.dispose();
    }
  });
});

describe('http() and authenticator() are kept per profile', () => {
  it('a second profile gets its own client and authenticator; the same profile the same ones', async () => {
    const ctx = context({ provider: 'openai', url: 'http://127.0.0.1:9', token: 'first' });
    try {
      const first = await ctx.profile();
      const second = { ...first, name: 'other', timeoutMs: 1234 };
      expect(await ctx.http(first)).toBe(await ctx.http(first));
      expect(await ctx.http(second)).not.toBe(await ctx.http(first));
      expect(await ctx.authenticator(first)).toBe(await ctx.authenticator(first));
      expect(await ctx.authenticator(second)).not.toBe(await ctx.authenticator(first));
    } finally {
      await ctx.dispose();
    }
  });
});
