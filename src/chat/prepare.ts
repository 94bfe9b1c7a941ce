/**
 * What every way of chatting (one turn, a batch, the interactive loop) needs once the flags are read: the checked
 * command line (`ChatSetup`), then the profile's chat ready to use (`prepareChat`).
 */
import type { Context } from '../context.js';
import type { ChatApi, ResolvedProfile } from '../contract/profile.js';
import { UsageError } from '../contract/errors.js';
import type { ChatOperation, ChatTarget } from '../contract/adapter.js';
import type { ChatParameters } from '../contract/chat.js';
import type { ChatPresentOptions } from './present.js';
import { checkChatFeatures, checkChatSupport, type ChatFeatureRequest } from './support.js';

/** Everything the command line says, checked; shared by the single turn, the batch and the interactive loop. */
export interface ChatSetup {
  parameters: ChatParameters;
  /** Tools and the response format (src/chat/features.ts), checked against the provider by prepareChat. */
  features: ChatFeatureRequest;
  extra?: Record<string, unknown> | undefined;
  model?: string | undefined;
  deployment?: string | undefined;
  present: Omit<ChatPresentOptions, 'live'>;
  ignoreUnsupported: boolean;
  /** The user's --stream / --no-stream, or 'auto'. */
  stream: boolean | 'auto';
  /** `--api`: which chat API to call; absent: the profile's `api:`, else the provider's first. */
  api?: ChatApi | undefined;
}

/** The profile's chat, ready: the operation, the target and the parameters the provider carries. */
export interface ChatReady {
  profile: ResolvedProfile;
  op: ChatOperation;
  target: Omit<ChatTarget, 'stream'>;
  parameters: ChatParameters;
  features: ChatFeatureRequest;
}

/**
 * The profile, its adapter's chat (a usage error naming where chat works when there is none), the target (the
 * profile's defaults.model when -m is not given) and the parameters checked against what the provider carries.
 */
export async function prepareChat(
  ctx: Context,
  setup: ChatSetup,
  warn: (message: string) => void = (m) => ctx.reporter.warn(m),
): Promise<ChatReady> {
  const profile = await ctx.connect(await ctx.profile());
  const { adapterFor, kindsWith } = await import('../../profiles/registry.js');
  const adapter = adapterFor(profile.provider);
  if (adapter.chat === undefined) {
    throw new UsageError(
      `${profile.provider} has no chat API (${adapter.displayName}); chat works with ${kindsWith((a) => a.chat !== undefined).join(', ')}`,
      {
        ...(adapter.missingChatHint ? { hint: adapter.missingChatHint } : {}),
      },
    );
  }
  const api = setup.api ?? profile.chatApi;
  if (api !== undefined && !(adapter.chatApis ?? ['chat-completions']).includes(api)) {
    throw new UsageError(
      `${profile.provider} has no ${api} API for chat (${adapter.displayName}); ${api} works with ${kindsWith((a) => a.chatApis?.includes(api) === true).join(', ')}`,
      setup.api === undefined ? { hint: `remove api: from profile "${profile.name}"` } : {},
    );
  }
  const op = await adapter.chat(api);
  const why = op.unavailable?.(profile);
  if (why) throw new UsageError(why.message, why.hint ? { hint: why.hint } : {});
  let model = setup.model ?? (setup.deployment === undefined ? profile.defaults.model : undefined);
  if (model === undefined && setup.deployment === undefined && ctx.terminal.interactive) {
    // On a terminal a missing model is asked for, from the models that can chat (as complete does).
    const { askTarget } = await import('../prompt/ask-target.js');
    model = await askTarget(ctx, profile, 'models', 'text_chat');
  }
  if (model === undefined && setup.deployment === undefined) {
    throw new UsageError(`missing required option: --model (profile "${profile.name}" has no defaults.model)`, {
      hint: 'give the model with -m, or a watsonx deployment with --id-or-name',
    });
  }
  const parameters = checkChatSupport(setup.parameters, op.capabilities, op.kind, {
    ignoreUnsupported: setup.ignoreUnsupported,
    warn,
  });
  const features = checkChatFeatures(setup.features, op.capabilities, op.kind, {
    ignoreUnsupported: setup.ignoreUnsupported,
    warn,
  });
  return {
    profile,
    op,
    features,
    target: {
      ...(model !== undefined ? { model } : {}),
      ...(setup.deployment !== undefined ? { deployment: setup.deployment } : {}),
    },
    parameters,
  };
}
