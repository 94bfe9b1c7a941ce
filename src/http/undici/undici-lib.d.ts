// Types of the undici files undici-parts.ts loads one by one (undici publishes types for its index only).
declare module 'undici/lib/dispatcher/dispatcher.js' {
  const Dispatcher: { prototype: object };
  export default Dispatcher;
}
declare module 'undici/lib/api/index.js' {
  import type { Dispatcher } from 'undici';
  const api: Record<string, unknown> & {
    request: (this: Dispatcher, opts: object) => Promise<Dispatcher.ResponseData>;
  };
  export default api;
}
declare module 'undici/lib/dispatcher/agent.js' {
  import type { Agent } from 'undici';
  const AgentClass: typeof Agent;
  export default AgentClass;
}
declare module 'undici/lib/dispatcher/env-http-proxy-agent.js' {
  import type { EnvHttpProxyAgent } from 'undici';
  const EnvHttpProxyAgentClass: typeof EnvHttpProxyAgent;
  export default EnvHttpProxyAgentClass;
}
