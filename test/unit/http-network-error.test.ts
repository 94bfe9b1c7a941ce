import { describe, expect, it } from 'vitest';
import { NetworkError, UsageError } from '../../src/contract/errors.js';
import {
  describeBodyFailure,
  describeRequestFailure,
  formatSeconds,
  type FailureContext,
} from '../../src/http/network-error.js';

const ctx: FailureContext = {
  service: 'watsonx',
  origin: 'https://us-south.ml.cloud.ibm.com',
  timeoutMs: 300_000,
  connectTimeoutMs: 10_000,
};
const at = 'watsonx at https://us-south.ml.cloud.ibm.com';

function coded(code: string, message = code): Error {
  return Object.assign(new Error(message), { code });
}

describe('describeRequestFailure', () => {
  it.each<[string, unknown, string, boolean, string | undefined]>([
    ['connection refused', coded('ECONNREFUSED'), `cannot connect to ${at}: connection refused`, true, undefined],
    [
      'refused on every address (AggregateError)',
      Object.assign(new AggregateError([coded('ECONNREFUSED'), coded('ECONNREFUSED')], ''), { code: 'ECONNREFUSED' }),
      `cannot connect to ${at}: connection refused`,
      true,
      undefined,
    ],
    [
      'DNS: no such host',
      coded('ENOTFOUND', 'getaddrinfo ENOTFOUND x'),
      `cannot connect to ${at}: host name not found (DNS)`,
      false,
      undefined,
    ],
    [
      'DNS: temporary failure',
      coded('EAI_AGAIN'),
      `cannot connect to ${at}: DNS lookup failed, try again later`,
      false,
      undefined,
    ],
    [
      'connect timeout',
      coded('UND_ERR_CONNECT_TIMEOUT'),
      `cannot connect to ${at}: no connection within 10 s`,
      false,
      undefined,
    ],
    [
      'headers timeout',
      coded('UND_ERR_HEADERS_TIMEOUT'),
      `no response from ${at} within 300 s (--timeout)`,
      false,
      undefined,
    ],
    ['reset', coded('ECONNRESET'), `connection to ${at} was reset before the answer`, true, undefined],
    [
      'socket closed',
      coded('UND_ERR_SOCKET', 'other side closed'),
      `connection to ${at} closed before the answer`,
      true,
      undefined,
    ],
    [
      'wrapped in a cause',
      new Error('fetch failed', { cause: coded('ECONNREFUSED') }),
      `cannot connect to ${at}: connection refused`,
      true,
      undefined,
    ],
    [
      'self-signed',
      coded('DEPTH_ZERO_SELF_SIGNED_CERT'),
      `TLS verification failed for ${at}: self-signed certificate`,
      false,
      'use --ca-cert FILE or --insecure',
    ],
    [
      'self-signed in chain',
      coded('SELF_SIGNED_CERT_IN_CHAIN'),
      `TLS verification failed for ${at}: self-signed certificate in the chain`,
      false,
      'use --ca-cert FILE or --insecure',
    ],
    [
      'unknown CA',
      coded('UNABLE_TO_VERIFY_LEAF_SIGNATURE'),
      `TLS verification failed for ${at}: certificate signed by an unknown CA`,
      false,
      'use --ca-cert FILE or --insecure',
    ],
    [
      'unknown CA (issuer)',
      coded('UNABLE_TO_GET_ISSUER_CERT_LOCALLY'),
      `TLS verification failed for ${at}: certificate signed by an unknown CA`,
      false,
      'use --ca-cert FILE or --insecure',
    ],
    [
      'host name mismatch',
      coded('ERR_TLS_CERT_ALTNAME_INVALID'),
      `TLS verification failed for ${at}: certificate does not match the host name`,
      false,
      'use --ca-cert FILE or --insecure',
    ],
    [
      'expired',
      coded('CERT_HAS_EXPIRED'),
      `TLS verification failed for ${at}: certificate has expired`,
      false,
      'use --ca-cert FILE or --insecure',
    ],
    [
      'anything else keeps its message',
      new Error('something odd'),
      `cannot connect to ${at}: something odd`,
      false,
      undefined,
    ],
  ])('%s', (_name, err, message, retryable, hint) => {
    const failure = describeRequestFailure(err, ctx);
    expect(failure.error).toBeInstanceOf(NetworkError);
    expect(failure.error.message).toBe(message);
    expect(failure.error.hint).toBe(hint);
    expect(failure.error.exitCode).toBe(5);
    expect(failure.retryable).toBe(retryable);
    expect(failure.error.cause).toBe(err);
  });

  it('names the proxy when the request went through one', () => {
    const failure = describeRequestFailure(coded('ECONNREFUSED'), { ...ctx, proxy: 'proxy.corp:3128' });
    expect(failure.error.message).toBe(`cannot connect to ${at} via proxy proxy.corp:3128: connection refused`);
  });

  it('a proxy asking for credentials gets a hint', () => {
    const failure = describeRequestFailure(
      coded('UND_ERR_ABORTED', 'Proxy response (407) !== 200 when HTTP Tunneling'),
      { ...ctx, proxy: 'p:1' },
    );
    expect(failure.error.message).toBe(`cannot connect to ${at} via proxy p:1: the proxy answered HTTP 407`);
    expect(failure.error.hint).toMatch(/user:password@host:port/);
  });

  it('a malformed request (bad header value) is a usage error, not a network error', () => {
    const failure = describeRequestFailure(coded('UND_ERR_INVALID_ARG', 'invalid authorization header'), ctx);
    expect(failure.error).toBeInstanceOf(UsageError);
    expect(failure.error.message).toBe('invalid request to watsonx: invalid authorization header');
    expect(failure.retryable).toBe(false);
  });
});

describe('describeBodyFailure', () => {
  it.each([
    ['silence', coded('UND_ERR_BODY_TIMEOUT'), `${at} sent nothing for 300 s in the middle of its answer (--timeout)`],
    ['reset', coded('ECONNRESET'), `connection to ${at} broke off in the middle of its answer`],
    ['closed', coded('UND_ERR_SOCKET'), `connection to ${at} broke off in the middle of its answer`],
    ['other', new Error('premature close'), `reading the answer from ${at} failed: premature close`],
  ])('%s', (_name, err, message) => {
    const error = describeBodyFailure(err, ctx);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.message).toBe(message);
  });
});

describe('formatSeconds', () => {
  it.each([
    [300_000, '300 s'],
    [10_000, '10 s'],
    [200, '0.2 s'],
    [1500, '1.5 s'],
    [150, '0.15 s'],
  ])('%i ms → %s', (ms, expected) => {
    expect(formatSeconds(ms)).toBe(expected);
  });
});
