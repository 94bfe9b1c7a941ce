/**
 * One upstream of `serve --upstream`: a resolved profile and the Context its calls go through. The context is
 * serve's own with two things replaced: the HTTP client, built on the one Transport serve made for upstream traffic
 * (src/http/upstream-transport.ts) and without client retries (the front client sees a 429 and its Retry-After and
 * decides itself), and the authenticator, built on that client, so the profile's credentials (and an IAM exchange)
 * go through it too. Nothing of the front request's credentials is in here: the routes never hand them over.
 */
import type { Authenticator, ProviderAdapter } from '../contract/adapter.js';
import type { HttpClient } from '../contract/http.js';
import type { ResolvedProfile } from '../contract/profile.js';
import type { Context } from '../context.js';
import type { Transport } from '../http/transport.js';

export interface Upstream {
  profile: ResolvedProfile;
  adapter: ProviderAdapter;
  ctx: Context;
  /** Drop parameters the upstream cannot take (with a warning header) rather than refusing the request. */
  ignoreUnsupported: boolean;
}

export async function openUpstream(
  ctx: Context,
  configured: ResolvedProfile,
  transport: Transport,
  ignoreUnsupported: boolean,
): Promise<Upstream> {
  // A local profile (the llama engine's) starts its embedded server here, once.
  const profile = await ctx.connect(configured);
  const { adapterFor } = await import('../../profiles/registry.js');
  const adapter = adapterFor(profile.provider);
  const { createHttpClient } = await import('../http/client.js');
  const http: HttpClient = createHttpClient({
    timeoutMs: profile.timeoutMs,
    retries: 0,
    ...(profile.tls.caCert ? { caCertPath: profile.tls.caCert } : {}),
    insecure: profile.tls.insecure,
    trace: ctx.reporter.verbose ? (line) => ctx.reporter.trace(line) : undefined,
    secrets: ctx.secrets,
    env: ctx.env,
    transport,
  });
  let auth: Promise<Authenticator> | undefined;
  const authenticator = (): Promise<Authenticator> =>
    (auth ??= (async () => {
      // A cassette replay (serve --replay) sends nothing upstream: no credential, no token exchange.
      if (transport.offline === true) return (await import('../cassette/offline-auth.js')).OFFLINE_AUTHENTICATOR;
      const { createTokenCache } = await import('../config/token-cache.js');
      return adapter.auth.create({
        profile,
        http,
        cache: createTokenCache({ env: ctx.env }),
        now: ctx.now,
        warn: (m) => ctx.reporter.warn(m),
      });
    })());
  for (const secret of profile.secrets) ctx.secrets.add(secret);
  const upstreamCtx: Context = { ...ctx, http: async () => http, authenticator };
  return { profile, adapter, ctx: upstreamCtx, ignoreUnsupported };
}
