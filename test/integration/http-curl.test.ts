import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { shellQuote, toCurl } from '../../src/http/curl.js';
import type { HttpRequestSpec } from '../../src/contract/http.js';

/**
 * Has bash run the line with `curl` replaced by a function that prints its argv, NUL-separated.
 * History expansion is switched on, as in an interactive shell where a user pastes the line.
 */
function argvOf(line: string, env: Record<string, string> = {}): string[] {
  const script = [
    'set -o history -o histexpand',
    `curl() { for a in "$@"; do printf '%s\\0' "$a"; done; }`,
    line,
    '',
  ].join('\n');
  const out = execFileSync('bash', ['--norc', '--noprofile', '-s'], {
    input: script,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    encoding: 'utf8',
  });
  return out.split('\0').slice(0, -1);
}

// Header values containing `${NAME}` (upper case) are placeholders by contract, so the nasty
// values use only `$`-forms that must stay literal.
const NASTY = [
  `it's "quoted"`,
  'line one\nline two',
  '$(touch /tmp/pwned) `id` $HOME ${home} $1 $$',
  'back\\slash \\n and \\\\',
  'unicode: héllo 日本語 🎉',
  'bang! !! !$ and tab\there',
  "'",
  '',
];

describe('toCurl', () => {
  it('prints the documented shape', () => {
    const line = toCurl({
      method: 'POST',
      url: 'https://us-south.ml.cloud.ibm.com/ml/v1/text/generation?version=2024-05-01',
      headers: { 'content-type': 'application/json', authorization: 'Bearer ${WATSONX_TOKEN}' },
      body: '{"input":"Hi"}',
    });
    expect(line).toBe(
      `curl -sS -N -X POST 'https://us-south.ml.cloud.ibm.com/ml/v1/text/generation?version=2024-05-01'` +
        ` -H 'content-type: application/json' -H "authorization: Bearer \${WATSONX_TOKEN}" --data-raw '{"input":"Hi"}'`,
    );
  });

  it.each<[string, HttpRequestSpec, { insecure?: boolean; caCertPath?: string }, string[]]>([
    [
      'a GET without body',
      { method: 'GET', url: 'http://127.0.0.1:8000/v2/health/ready', headers: {} },
      {},
      ['-sS', '-N', '-X', 'GET', 'http://127.0.0.1:8000/v2/health/ready'],
    ],
    ['HEAD uses --head', { method: 'HEAD', url: 'http://h/', headers: {} }, {}, ['-sS', '-N', '--head', 'http://h/']],
    [
      '--insecure and --ca-cert',
      { method: 'GET', url: 'https://h/', headers: {} },
      { insecure: true, caCertPath: "/tmp/my ca's.pem" },
      ['-sS', '-N', '-X', 'GET', 'https://h/', '-k', '--cacert', "/tmp/my ca's.pem"],
    ],
    [
      'an empty header value is sent as empty',
      { method: 'GET', url: 'http://h/', headers: { 'x-empty': '' } },
      {},
      ['-sS', '-N', '-X', 'GET', 'http://h/', '-H', 'x-empty;'],
    ],
    [
      'a form body',
      {
        method: 'POST',
        url: 'https://iam.example/identity/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=urn%3Aibm%3Aparams%3Aoauth%3Agrant-type%3Aapikey&apikey=${WATSONX_APIKEY}',
      },
      {},
      [
        '-sS',
        '-N',
        '-X',
        'POST',
        'https://iam.example/identity/token',
        '-H',
        'content-type: application/x-www-form-urlencoded',
        '--data-raw',
        'grant_type=urn%3Aibm%3Aparams%3Aoauth%3Agrant-type%3Aapikey&apikey=${WATSONX_APIKEY}',
      ],
    ],
  ])('%s round-trips through bash', (_name, request, opts, expected) => {
    expect(argvOf(toCurl(request, opts))).toEqual(expected);
  });

  it.each(NASTY.map((value) => [JSON.stringify(value), value]))(
    'body, URL and header value %s reach curl byte for byte',
    (_label, value) => {
      const request: HttpRequestSpec = {
        method: 'POST',
        url: `https://h.example/p?q=${value}`,
        headers: { 'x-nasty': value },
        body: JSON.stringify({ input: value }).replace('\\n', '\n') + value,
      };
      const argv = argvOf(toCurl(request), { HOME: '/home/should-not-expand' });
      expect(argv).toEqual([
        '-sS',
        '-N',
        '-X',
        'POST',
        request.url,
        '-H',
        value === '' ? 'x-nasty;' : `x-nasty: ${value}`,
        '--data-raw',
        request.body,
      ]);
    },
  );

  it.each(NASTY.map((value) => [JSON.stringify(value), value]))(
    'a header with a ${NAME} placeholder expands the variable and keeps %s literal',
    (_label, value) => {
      const token = `tok'en "$(x)" \`y\` \\ !z`;
      const request: HttpRequestSpec = {
        method: 'POST',
        url: 'https://h.example/',
        headers: { authorization: `Bearer \${TEXTGEN_TOKEN}|${value}|\${OTHER_1}$NOT_A_PLACEHOLDER\${lower}` },
      };
      const line = toCurl(request);
      expect(line).toContain('"authorization: Bearer ${TEXTGEN_TOKEN}|');
      const argv = argvOf(line, { TEXTGEN_TOKEN: token, OTHER_1: 'two', NOT_A_PLACEHOLDER: 'x', lower: 'y' });
      expect(argv).toEqual([
        '-sS',
        '-N',
        '-X',
        'POST',
        'https://h.example/',
        '-H',
        `authorization: Bearer ${token}|${value}|two$NOT_A_PLACEHOLDER\${lower}`,
      ]);
    },
  );

  it('prints one command even when values are nasty (no command substitution ran)', () => {
    const line = toCurl({ method: 'POST', url: 'http://h/', headers: { a: '$(echo pwned)' }, body: '`echo pwned`' });
    expect(argvOf(line)).toEqual([
      '-sS',
      '-N',
      '-X',
      'POST',
      'http://h/',
      '-H',
      'a: $(echo pwned)',
      '--data-raw',
      '`echo pwned`',
    ]);
  });
});

describe('shellQuote', () => {
  it.each([
    ['plain', "'plain'"],
    ["it's", `'it'\\''s'`],
    ['', "''"],
  ])('%s → %s', (value, expected) => {
    expect(shellQuote(value)).toBe(expected);
  });
});
