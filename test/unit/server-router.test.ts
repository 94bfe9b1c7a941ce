import { describe, expect, test } from 'vitest';
import { formatEvent } from '../../src/emulator/core/event-stream.js';
import { FaultQueue } from '../../src/emulator/core/fault-queue.js';
import { Router, type ProtocolModule } from '../../src/emulator/core/router.js';
import type { Fault } from '../../src/emulator/core/types.js';

function protocol(name: string, prefixes: string[], patterns: [string, string][]): ProtocolModule {
  return {
    name,
    prefixes,
    routes: patterns.map(([method, pattern]) => ({ method, pattern, handler: () => {} })),
    sendError: () => {},
  };
}

describe('router', () => {
  const watsonx = protocol('watsonx', ['/ml/'], [['POST', '/ml/v1/deployments/:id/text/generation']]);
  const other = protocol(
    'other',
    ['/openai/'],
    [
      ['POST', '/openai/deployments/:id/completions'],
      ['GET', '/openai/models'],
    ],
  );
  const router = new Router().register(watsonx).register(other);

  test.each<[string, string, string, string, Record<string, string>]>([
    ['POST', '/ml/v1/deployments/demo/text/generation', 'route', 'watsonx', { id: 'demo' }],
    ['POST', '/ml/v1/deployments/my%20model/text/generation', 'route', 'watsonx', { id: 'my model' }],
    ['POST', '/openai/deployments/gpt/completions', 'route', 'other', { id: 'gpt' }],
    ['GET', '/openai/models', 'route', 'other', {}],
    ['GET', '/ml/v1/deployments/demo/text/generation', 'method-not-allowed', 'watsonx', {}],
    ['POST', '/openai/nothing', 'not-found', 'other', {}],
    ['GET', '/elsewhere', 'not-found', 'watsonx', {}],
  ])('%s %s → %s by %s', (method, path, kind, owner, params) => {
    const found = router.dispatch(method, path);
    expect(found.kind).toBe(kind);
    expect(found.module.name).toBe(owner);
    if (found.kind === 'route') expect(found.params).toEqual(params);
    if (found.kind === 'method-not-allowed') expect(found.allowed).toEqual(['POST']);
  });

  test('a path segment that does not decode matches nothing', () => {
    expect(router.dispatch('POST', '/ml/v1/deployments/%E0%A4%A/text/generation').kind).toBe('not-found');
  });
});

describe('fault queue', () => {
  test.each<[Fault, boolean, boolean]>([
    [{ kind: 'status', status: 500 }, true, true],
    [{ kind: 'delay', ms: 1 }, true, true],
    [{ kind: 'hang' }, true, true],
    [{ kind: 'drop' }, true, true],
    [{ kind: 'drop', afterEvents: 1 }, false, true],
    [{ kind: 'stream-error', afterEvents: 1 }, false, true],
    [{ kind: 'stall', afterEvents: 1 }, false, true],
    [{ kind: 'malformed', afterEvents: 1 }, false, true],
  ])('%o applies to plain requests: %s, to streams: %s', (fault, plain, stream) => {
    expect(new FaultQueue([fault]).take(false) === fault).toBe(plain);
    expect(new FaultQueue([fault]).take(true) === fault).toBe(stream);
  });

  test('the first applicable fault is taken, and times counts down without touching the fault', () => {
    const streamOnly: Fault = { kind: 'stall', afterEvents: 0 };
    const twice: Fault = { kind: 'status', status: 503, times: 2 };
    const queue = new FaultQueue([streamOnly, twice]);
    expect(queue.take(false)).toBe(twice);
    expect(queue.take(false)).toBe(twice);
    expect(queue.take(false)).toBeUndefined();
    expect(twice.times).toBe(2);
    expect(queue.queue).toEqual([streamOnly]);
  });

  test('a fault with a path hits only requests under it, auxiliary routes included; one without skips auxiliary routes', () => {
    const aimed: Fault = { kind: 'delay', ms: 1, path: '/ml/v1/foundation_model_specs' };
    const plain: Fault = { kind: 'status', status: 503 };
    const queue = new FaultQueue([aimed, plain]);
    expect(queue.take(false, { path: '/ml/v1/text/tokenization', auxiliary: true })).toBeUndefined();
    expect(queue.take(false, { path: '/ml/v1/foundation_model_specs', auxiliary: true })).toBe(aimed);
    expect(queue.take(false, { path: '/ml/v1/text/generation' })).toBe(plain);
    expect(queue.queue).toEqual([]);
    const again = new FaultQueue([{ ...aimed }]);
    expect(again.take(false, { path: '/ml/v1/text/generation' })).toBeUndefined();
    expect(again.take(false)).toBeUndefined();
  });
});

describe('event format', () => {
  test.each([
    [{ id: '1', event: 'message', data: '{}' }, 'id: 1\nevent: message\ndata: {}\n\n'],
    [{ data: 'a\nb' }, 'data: a\ndata: b\n\n'],
  ])('%o', (event, wire) => {
    expect(formatEvent(event)).toBe(wire);
  });
});
