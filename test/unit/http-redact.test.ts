import { describe, expect, it } from 'vitest';
import { redactBody, redactHeaders, redactText, redactUrl } from '../../src/contract/redact.js';

describe('redactHeaders', () => {
  it.each<[string, string, string]>([
    ['authorization', 'Bearer eyJhbGciOi.secret.sig', 'Bearer ***'],
    ['Authorization', 'ZenApiKey YWRtaW46a2V5', 'ZenApiKey ***'],
    ['authorization', 'Basic dXNlcjpwYXNz', 'Basic ***'],
    ['authorization', 'justatoken', '***'],
    ['proxy-authorization', 'Basic dXNlcjpwYXNz', 'Basic ***'],
    ['api-key', 'abcd1234', '***'],
    ['x-api-key', 'abcd1234', '***'],
    ['cookie', 'session=abc; other=def', '***'],
    ['set-cookie', 'session=abc; HttpOnly', '***'],
    ['content-type', 'application/json', 'application/json'],
    ['x-request-id', 'req-123', 'req-123'],
  ])('%s: %s → %s', (name, value, expected) => {
    expect(redactHeaders({ [name]: value })).toEqual({ [name]: expected });
  });

  it('keeps every header and does not change its input', () => {
    const input = { authorization: 'Bearer tok', accept: 'text/event-stream' };
    expect(redactHeaders(input)).toEqual({ authorization: 'Bearer ***', accept: 'text/event-stream' });
    expect(input.authorization).toBe('Bearer tok');
  });
});

describe('redactText', () => {
  it.each<[string, string, string[], string]>([
    ['replaces every occurrence', 'key=s3cr3t and again s3cr3t', ['s3cr3t'], 'key=*** and again ***'],
    ['ignores secrets shorter than 4 characters', 'abc is everywhere', ['abc'], 'abc is everywhere'],
    ['masks several secrets', 'one-AAAA two-BBBB', ['AAAA', 'BBBB'], 'one-*** two-***'],
    [
      'masks a longer secret whole when it contains a shorter one',
      'x-longsecret1234-x',
      ['1234', 'longsecret1234'],
      'x-***-x',
    ],
    ['masks the URL-encoded form too', 'apikey=a%2Fb%3Dc%2Bd', ['a/b=c+d'], 'apikey=***'],
    ['treats regex characters literally', 'v=a.b*c', ['a.b*c'], 'v=***'],
    ['leaves text without secrets alone', 'hello', ['secret'], 'hello'],
  ])('%s', (_name, text, secrets, expected) => {
    expect(redactText(text, secrets)).toBe(expected);
  });
});

describe('redactBody', () => {
  it.each<[string, string, string | undefined, string]>([
    [
      'JSON credential fields at the top level',
      '{"username":"admin","api_key":"k1","password":"p1"}',
      'application/json',
      '{"username":"admin","api_key":"***","password":"***"}',
    ],
    [
      'JSON credential fields at any depth and in arrays',
      '{"a":{"b":[{"token":"t"},{"access_token":"x","refresh_token":"y"}]},"secret":{"deep":1},"apikey":"z"}',
      'application/json; charset=utf-8',
      '{"a":{"b":[{"token":"***"},{"access_token":"***","refresh_token":"***"}]},"secret":"***","apikey":"***"}',
    ],
    [
      'JSON keys compared case-insensitively',
      '{"ApiKey":"k","Password":"p"}',
      'application/json',
      '{"ApiKey":"***","Password":"***"}',
    ],
    [
      'ordinary JSON is unchanged',
      '{"input":"token of appreciation","parameters":{"max_new_tokens":5}}',
      'application/json',
      '{"input":"token of appreciation","parameters":{"max_new_tokens":5}}',
    ],
    ['JSON without a content type is still recognised', '{"password":"p"}', undefined, '{"password":"***"}'],
    ['broken JSON is returned as it was', '{"password":', 'application/json', '{"password":'],
    [
      'the IAM form body',
      'grant_type=urn%3Aibm%3Aparams%3Aoauth%3Agrant-type%3Aapikey&apikey=abc123',
      'application/x-www-form-urlencoded',
      'grant_type=urn%3Aibm%3Aparams%3Aoauth%3Agrant-type%3Aapikey&apikey=***',
    ],
    [
      'form password and token',
      'username=u&password=p%40ss&token=t',
      'application/x-www-form-urlencoded',
      'username=u&password=***&token=***',
    ],
    [
      'nested form names',
      'creds%5Bpassword%5D=p&x=1',
      'application/x-www-form-urlencoded',
      'creds%5Bpassword%5D=***&x=1',
    ],
    ['plain text is unchanged', 'password=p', 'text/plain', 'password=p'],
  ])('%s', (_name, body, contentType, expected) => {
    expect(redactBody(body, contentType)).toBe(expected);
  });
});

describe('redactUrl', () => {
  it.each([
    [
      'https://h.example/ml/v1/text/generation?version=2024-05-01',
      'https://h.example/ml/v1/text/generation?version=2024-05-01',
    ],
    ['https://user:pa55@proxy.example:3128/', 'https://user:***@proxy.example:3128/'],
    ['https://h.example/x?api_key=abc&v=1', 'https://h.example/x?api_key=***&v=1'],
    ['not a url', 'not a url'],
  ])('%s → %s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });
});
