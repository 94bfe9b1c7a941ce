/**
 * Hand-picked hostile inputs, as data: each is run through the built bin/textgen.js and must end with the
 * expected exit code and a message matching `message`. Valid inputs run with --dry-run and must succeed.
 */
import type { Expectation } from './support/judge.js';
import { deepArray, deepObject, FILES, hugeParameters } from './support/workspace.js';
import { notOursCases } from './not-ours.js';

export interface HandPickedCase extends Expectation {
  name: string;
  args: string[];
  stdin?: string | Uint8Array | 'closed';
  /** Run `sh -c 'exec node bin … <&-'`: stdin really closed, not /dev/null. */
  closedFd?: boolean;
  /** Files of a config case: the case runs in a fresh directory holding them, which is also HOME. */
  config?: Record<string, string | Uint8Array>;
  env?: Record<string, string>;
  /** Why it cannot run here (e.g. permissions do not apply to root). */
  skip?: string;
  /** Prepares the case's own directory (which is also its HOME) before the run: links, devices, modes. */
  setup?: (dir: string, env: Record<string, string>) => void;
  /** What stdout must hold (for a case that succeeds). */
  stdout?: RegExp;
  /** After the run: what the CLI must not have done to files that are not its own; each problem is one string. */
  after?: (dir: string, env: Record<string, string>) => string[];
  timeoutMs?: number;
}

/** An ad hoc watsonx endpoint nothing listens on: with --dry-run nothing is sent. */
export const WATSONX = ['--provider', 'watsonx', '--url', 'http://127.0.0.1:9', '--token', 'test-token', '--dry-run'];
export const TEXT_GENERATE = [...WATSONX, 'deployment', 'text-generate', '--id-or-name', 'demo'];
export const COMPLETE = [...WATSONX, 'complete', '-m', 'ibm/granite-13b-instruct-v2'];
const ALEPH_COMPLETE = ['--profile', 'local-aa', '--dry-run', 'complete'];
const ALEPH_EMBED = ['--profile', 'local-aa', '--dry-run', 'embed'];
const TG_HI = [...TEXT_GENERATE, '--input', 'Hello'];

/** The JSON options of `deployment text-generate` (the others are validated the same way: see the generated cases). */
const TG_JSON_OPTIONS = [
  '--parameters',
  '--moderations',
  '--extra',
  '--parameters-length-penalty',
  '--parameters-prompt-variables',
  '--parameters-return-options',
];

const MALFORMED_JSON: Array<[label: string, value: string, message: RegExp]> = [
  ['an unclosed object', '{"a": 1', /invalid JSON at line 1, column 8/],
  ['single quotes', "{'top_k': 5}", /invalid JSON at line 1, column 2/],
  ['a trailing comma', '{"top_k": 5,}', /invalid JSON at line 1, column 13/],
  ['a bare word', 'nul', /invalid JSON/],
  ['only spaces', '   ', /empty value/],
  ['a lone @', '@', /missing file name after "@"/],
];

/** One wrong-typed value for each field of --parameters, and for the granular flag of the same field. */
const WRONG_FIELD_VALUES: Array<[field: string, json: unknown, flag: string, flagValue: string]> = [
  ['decoding_method', 'beam', '--parameters-decoding-method', 'beam'],
  ['include_stop_sequence', 'yes', '--parameters-include-stop-sequence', 'yes'],
  ['length_penalty', { decay_factor: 'big' }, '--parameters-length-penalty', '{"decay_factor": 1}'],
  ['max_new_tokens', -1, '--parameters-max-new-tokens', '12.5'],
  ['min_new_tokens', '5', '--parameters-min-new-tokens', 'five'],
  ['prompt_variables', { city: 7 }, '--parameters-prompt-variables', '["Paris"]'],
  ['random_seed', 0, '--parameters-random-seed', '0x10'],
  ['repetition_penalty', 2.5, '--parameters-repetition-penalty', 'NaN'],
  ['return_options', { top_n_tokens: 6 }, '--parameters-return-options', '{"generated_tokens": "yes"}'],
  ['stop_sequences', ['a', ''], '--parameters-stop-sequences', '["a", 5]'],
  ['temperature', 2.01, '--parameters-temperature', 'Infinity'],
  ['time_limit', 0, '--parameters-time-limit', '-100'],
  ['top_k', 101, '--parameters-top-k', '1e2'],
  ['top_p', 0, '--parameters-top-p', '1.0000001'],
  ['truncate_input_tokens', true, '--parameters-truncate-input-tokens', ''],
  ['typical_p', null, '--parameters-typical-p', '-0.5'],
];

const INVALID_UTF8: Array<[label: string, bytes: number[]]> = [
  ['a lone continuation byte', [0x48, 0x69, 0x80]],
  ['an encoded surrogate', [0xed, 0xa0, 0x80]],
  ['Latin-1 text', [...Buffer.from('caf\u00e9', 'latin1')]],
];

const BAD_URLS: Array<[url: string, message: RegExp]> = [
  ['htp://example.com', /must be an http:\/\/ or https:\/\/ URL, got "htp:\/\/example.com"/],
  ['http://', /no host name/],
  ['http://exa mple.com', /spaces or control characters/],
  ['http://example.com:99999', /port 99999 is out of range/],
  ['http://example.com:0', /port 0 is out of range/],
  ['file:///etc/passwd', /must be an http:\/\/ or https:\/\/ URL/],
  ['http://example.com/?version=1', /no query/],
];

const profileWithUrl = (url: string) =>
  `default_profile: p\nprofiles:\n  p:\n    provider: watsonx\n    url: ${JSON.stringify(url)}\n    auth: { type: none }\n`;

export function handPickedCases(): HandPickedCase[] {
  const root = process.getuid?.() === 0;
  const cases: HandPickedCase[] = [];
  const add = (c: HandPickedCase) => cases.push(c);

  // Malformed JSON: every kind in --parameters, and one kind (in turn) in each other JSON option of text-generate.
  // They share one reader, and the generated cases put random text into all of them.
  TG_JSON_OPTIONS.forEach((flag, i) => {
    const kinds = i === 0 ? MALFORMED_JSON : [MALFORMED_JSON[i % MALFORMED_JSON.length]!];
    for (const [label, value, message] of kinds) {
      add({
        name: `${flag} with ${label}`,
        args: [...TG_HI, flag, value],
        code: 2,
        message: new RegExp(`${flag}: ${message.source}`),
      });
    }
  });
  add({
    name: 'complete --parameters with a trailing comma',
    args: [...COMPLETE, '--parameters', '{"top_k": 5,}', 'Hi'],
    code: 2,
    message: /--parameters: invalid JSON/,
  });
  add({
    name: 'complete --prompt-json that is not JSON',
    args: [...ALEPH_COMPLETE, '--prompt-json', '[{"type": "text", "data": "x"'],
    code: 2,
    message: /--prompt-json: invalid JSON/,
  });
  add({
    name: 'embed --prompt-json with single quotes',
    args: [...ALEPH_EMBED, '--prompt-json', "[{'type': 'text'}]"],
    code: 2,
    message: /--prompt-json: invalid JSON/,
  });
  add({
    name: '--parameters-stop-sequences as a broken JSON array',
    args: [...TG_HI, '--parameters-stop-sequences', '["a", "b"'],
    code: 2,
    message: /--parameters-stop-sequences: invalid JSON/,
  });

  // JSON of the wrong shape.
  for (const [flag, value, message] of [
    ['--parameters', '[1, 2]', /--parameters must be a JSON object, got a list/],
    ['--extra', '42', /--extra must be a JSON object/],
    ['--moderations', '[]', /--moderations must be a JSON object/],
    ['--parameters', '{"max_new_tokenz": 5}', /unknown field "max_new_tokenz" \(did you mean "max_new_tokens"\?\)/],
    ['--parameters', '{"__proto__": {"top_k": 5}}', /unknown field "__proto__"/],
  ] as const) {
    add({ name: `${flag} ${value}`, args: [...TG_HI, flag, value], code: 2, message });
  }

  // Every field of --parameters and every granular flag, with a value of the wrong type or range: four at a
  // time, since one message names every bad value (the generated cases try them one by one, in-process).
  for (let i = 0; i < WRONG_FIELD_VALUES.length; i += 4) {
    const group = WRONG_FIELD_VALUES.slice(i, i + 4);
    const naming = (names: string[]) => new RegExp(names.map((n) => `(?=[^]*${n}\\b)`).join(''));
    add({
      name: `--parameters with a wrong ${group.map(([field]) => field).join(', ')}`,
      args: [...TG_HI, '--parameters', JSON.stringify(Object.fromEntries(group.map(([field, json]) => [field, json])))],
      code: 2,
      message: naming(group.map(([field]) => `--parameters: ${field}`)),
    });
    add({
      name: group.map(([, , flag, value]) => `${flag}=${JSON.stringify(value)}`).join(' '),
      args: [...TG_HI, ...group.map(([, , flag, value]) => `${flag}=${value}`)],
      code: 2,
      message: naming(group.map(([, , flag]) => flag)),
    });
  }
  add({
    name: 'min_new_tokens above max_new_tokens across two flags',
    args: [...TG_HI, '--parameters-min-new-tokens', '9', '--parameters-max-new-tokens', '3'],
    code: 2,
    message: /--parameters-min-new-tokens \(9\) must not be greater than --parameters-max-new-tokens \(3\)/,
  });

  // Huge JSON options: accepted whole (the service decides), up to the 16 MiB read limit for files.
  add({
    name: 'an inline --parameters of 120 kB (near the kernel limit for one argument)',
    args: [...TG_HI, '--parameters', hugeParameters(120_000)],
    code: 0,
  });
  add({ name: 'a 3 MB --parameters @file', args: [...TG_HI, '--parameters', `@${FILES.huge}`], code: 0 });
  add({
    name: 'a 3 MB --parameters @file with a stray comma at the end',
    args: [...TG_HI, '--parameters', `@${FILES.hugeBroken}`],
    code: 2,
    message: /invalid JSON in huge-broken.json at line 1, column \d{7}/,
  });
  add({
    name: '--parameters @/dev/zero (endless)',
    args: [...TG_HI, '--parameters', '@/dev/zero'],
    code: 2,
    message: /--parameters: \/dev\/zero holds more than 16 MiB/,
  });

  // @file pointing at the wrong thing.
  add({
    name: '--parameters @ a directory',
    args: [...TG_HI, '--parameters', `@${FILES.directory}`],
    code: 2,
    message: /--parameters: cannot read a-directory.json: it is a directory/,
  });
  add({
    name: '--moderations @ a missing file',
    args: [...TG_HI, '--moderations', `@${FILES.missing}`],
    code: 2,
    message: /--moderations: cannot read no-such-file.json: no such file/,
  });
  add({
    name: '--extra @ an unreadable file',
    args: [...TG_HI, '--extra', `@${FILES.unreadable}`],
    code: 2,
    message: /permission denied/,
    ...(root ? { skip: 'root reads every file' } : {}),
  });
  add({
    name: '--parameters @ a binary file',
    args: [...TG_HI, '--parameters', `@${FILES.binary}`],
    code: 2,
    message: /--parameters: binary.bin is not UTF-8 text: invalid byte 0xFF at offset 5/,
  });
  add({
    name: '--parameters @ an empty file',
    args: [...TG_HI, '--parameters', `@${FILES.empty}`],
    code: 2,
    message: /--parameters: empty.json is empty/,
  });
  add({
    name: '--input-file a directory',
    args: [...TEXT_GENERATE, '--input-file', FILES.directory],
    code: 2,
    message: /--input-file: cannot read a-directory.json: it is a directory/,
  });
  add({
    name: '--input-file an unreadable file',
    args: [...TEXT_GENERATE, '--input-file', FILES.unreadable],
    code: 2,
    message: /permission denied/,
    ...(root ? { skip: 'root reads every file' } : {}),
  });
  add({
    name: '--input-file a Latin-1 file',
    args: [...TEXT_GENERATE, '--input-file', FILES.latin1],
    code: 2,
    message: /--input-file: latin1-prompt.txt is not UTF-8 text: invalid byte 0xE9 at offset 3/,
  });
  add({
    name: '--input-file /dev/zero (endless)',
    args: [...TEXT_GENERATE, '--input-file', '/dev/zero'],
    code: 2,
    message: /more than 16 MiB/,
  });
  add({
    name: 'tokenize --input-file a binary file',
    args: ['tokenize', '--local', '--encoding', 'cl100k_base', '--input-file', FILES.binary],
    code: 2,
    message: /not UTF-8 text/,
  });
  add({
    name: 'complete --image of a file that is not an image',
    args: [...ALEPH_COMPLETE, '--image', `@${FILES.prompt}`, 'Describe'],
    code: 2,
    message: /not a PNG or JPEG/,
  });
  add({
    name: 'complete --image with a watsonx profile',
    args: [...COMPLETE, '--image', `@${FILES.png}`, 'Describe'],
    code: 2,
    message: /Aleph Alpha prompts/,
  });

  // Deeply nested JSON: refused by depth, never by a stack overflow.
  add({
    name: '--parameters @ 100 000 nested arrays',
    args: [...TG_HI, '--parameters', `@${FILES.deepArray}`],
    code: 2,
    message: /nested more than 100 levels deep/,
  });
  add({
    name: '--extra @ 100 000 nested objects',
    args: [...TG_HI, '--extra', `@${FILES.deepObject}`],
    code: 2,
    message: /--extra: JSON in deep-object.json is nested more than 100 levels deep/,
  });
  add({
    name: '--moderations @ 100 000 unclosed arrays',
    args: [...TG_HI, '--moderations', `@${FILES.deepUnclosed}`],
    code: 2,
    message: /invalid JSON .*unexpected end of input/,
  });
  add({
    name: 'an inline --extra of 20 000 nested objects',
    args: [...TG_HI, '--extra', deepObject(20_000)],
    code: 2,
    message: /nested more than 100 levels deep/,
  });
  add({
    name: 'an inline --parameters-stop-sequences array of 60 000 nested arrays',
    args: [...TG_HI, '--parameters-stop-sequences', `["a", ${deepArray(60_000)}]`],
    code: 2,
    message: /nested more than 100 levels/,
  });
  add({
    name: 'complete --prompt-json of 60 000 nested arrays',
    args: [...ALEPH_COMPLETE, '--prompt-json', deepArray(60_000)],
    code: 2,
    message: /--prompt-json: .*nested more than 100 levels/,
  });
  add({
    name: 'embed --input-file holding 50 000 nested arrays',
    args: [...ALEPH_EMBED, '--input-file', FILES.embedDeep],
    code: 2,
    message: /nested more than 100 levels/,
  });
  add({ name: 'nesting of exactly 100 levels is fine', args: [...TG_HI, '--extra', deepObject(100)], code: 0 });
  add({
    name: 'nesting of 101 levels is refused',
    args: [...TG_HI, '--extra', deepObject(101)],
    code: 2,
    message: /--extra: JSON is nested more than 100 levels deep \(line 1, column 501\)/,
  });

  // Conflicting flags.
  add({
    name: '--parameters with --parameters-top-k',
    args: [...TG_HI, '--parameters', '{}', '--parameters-top-k', '5'],
    code: 2,
    message: /--parameters and --parameters-top-k cannot be used together/,
  });
  add({
    name: '--parameters with --parameters-return-options',
    args: [...TG_HI, '--parameters', '{}', '--parameters-return-options', '{}'],
    code: 2,
    message: /--parameters and --parameters-return-options cannot be used together/,
  });
  add({
    name: '--input with --input-file',
    args: [...TG_HI, '--input-file', FILES.prompt],
    code: 2,
    message: /--input and --input-file cannot be used together/,
  });
  add({
    name: 'two options reading stdin',
    args: [...TG_HI, '--parameters', '@-', '--extra', '@-'],
    stdin: '{}',
    code: 2,
    message: /only one option can read stdin/,
  });
  add({
    name: '@- with the prompt also on stdin',
    args: [...TEXT_GENERATE, '--parameters', '@-'],
    stdin: '{}',
    code: 2,
    message: /reads stdin, so the prompt cannot come from stdin too/,
  });
  add({
    name: 'complete --parameters @- with the prompt as words (regression: was refused)',
    args: [...COMPLETE, '--parameters', '@-', 'Hello'],
    stdin: '{"max_new_tokens": 3}',
    code: 0,
  });
  add({
    name: '--input-file - with --moderations @-',
    args: [...TEXT_GENERATE, '--input-file', '-', '--moderations', '@-'],
    stdin: '{}',
    code: 2,
    message: /only one option can read stdin/,
  });
  add({
    name: '--api-key with --token',
    args: ['--api-key', 'k', ...TG_HI],
    code: 2,
    message: /--api-key and --token cannot be used together/,
  });
  add({
    name: 'TEXTGEN_API_KEY and TEXTGEN_TOKEN both set',
    args: ['--profile', 'p', '--dry-run', 'deployment', 'text-generate', '--id-or-name', 'd', '--input', 'x'],
    config: { '.textgenrc.yaml': 'profiles:\n  p: { provider: watsonx, url: "http://127.0.0.1:9" }\n' },
    env: { TEXTGEN_API_KEY: 'k', TEXTGEN_TOKEN: 't' },
    code: 2,
    message: /both set/,
  });
  add({
    name: 'complete prompt words with --input-file',
    args: [...COMPLETE, '--input-file', FILES.prompt, 'Hi'],
    code: 2,
    message: /give the prompt once/,
  });
  add({
    name: '--parameters-include-stop-sequence=maybe',
    args: [...TG_HI, '--parameters-include-stop-sequence=maybe'],
    code: 2,
    message: /must be true or false/,
  });
  add({
    name: 'an unknown option',
    args: [...TG_HI, '--paramters', '{}'],
    code: 2,
    message: /unknown option '--paramters'/,
  });
  add({
    name: 'an option without its value',
    args: [...TEXT_GENERATE, '--input'],
    code: 2,
    message: /argument missing/,
  });
  add({
    name: 'an unknown provider',
    args: [
      '--provider',
      'bard',
      '--url',
      'http://127.0.0.1:9',
      '--dry-run',
      'deployment',
      'text-generate',
      '--id-or-name',
      'd',
      '--input',
      'x',
    ],
    code: 2,
    message: /--provider must be one of/,
  });
  add({ name: 'an unknown output format', args: [...TG_HI, '-o', 'xml'], code: 2, message: /--output must be one of/ });
  add({
    name: 'a negative --timeout',
    args: ['--timeout', '-5', ...TG_HI],
    code: 2,
    message: /--timeout must be a non-negative integer/,
  });
  add({
    name: '--retries 100000 (would retry for days)',
    args: ['--retries', '100000', ...TG_HI],
    code: 2,
    message: /--retries must be an integer from 0 to 10, got "100000"/,
  });
  add({
    name: 'a newline in an @file name stays on the error line',
    args: [...TG_HI, '--parameters', '@no\nsuch.json'],
    code: 2,
    message: /cannot read no\\nsuch\.json: no such file/,
  });
  add({
    name: 'an unsupported parameter for the provider',
    args: [
      '--provider',
      'azure-openai',
      '--url',
      'http://127.0.0.1:9',
      '--api-key',
      'k',
      '--dry-run',
      'complete',
      '-m',
      'x',
      '--top-k',
      '5',
      'Hi',
    ],
    code: 2,
    message: /top_k/,
  });
  add({
    name: 'a terminal escape in a flag value is shown escaped',
    args: [...TG_HI, '--parameters-top-k', '\u001b[2J\u001b]0;pwned\u0007'],
    code: 2,
    message: /--parameters-top-k must be an integer/,
  });
  add({
    name: 'a C1 control character in --url is shown escaped',
    args: [
      '--provider',
      'watsonx',
      '--url',
      'http://a\u009b31mb',
      '--dry-run',
      'deployment',
      'text-generate',
      '--id-or-name',
      'd',
      '--input',
      'x',
    ],
    code: 2,
    message: /spaces or control characters/,
  });

  // Invalid URLs, on the command line and in a profile.
  BAD_URLS.forEach(([url, message], i) => {
    add({
      name: `--url ${JSON.stringify(url)}`,
      args: [
        '--provider',
        'watsonx',
        '--url',
        url,
        '--token',
        't',
        '--dry-run',
        'deployment',
        'text-generate',
        '--id-or-name',
        'd',
        '--input',
        'x',
      ],
      code: 2,
      message,
    });
    // A profile's url goes through the same check: every other kind is enough to show it is applied there.
    if (i % 3 === 0)
      add({
        name: `a profile url ${JSON.stringify(url)}`,
        args: ['--dry-run', 'deployment', 'text-generate', '--id-or-name', 'd', '--input', 'x'],
        config: { '.textgenrc.yaml': profileWithUrl(url) },
        code: 2,
        message: /profiles\.p\.url: must be an http:\/\/ or https:\/\/ URL/,
      });
  });
  add({
    name: 'TEXTGEN_URL with another scheme',
    args: ['--provider', 'watsonx', '--dry-run', 'deployment', 'text-generate', '--id-or-name', 'd', '--input', 'x'],
    env: { TEXTGEN_URL: 'gopher://x' },
    code: 2,
    message: /TEXTGEN_URL must be an http/,
  });

  // Bad config files, in every form cosmiconfig loads.
  const run = ['--dry-run', 'deployment', 'text-generate', '--id-or-name', 'd', '--input', 'x'];
  const configCases: Array<
    [name: string, files: Record<string, string | Uint8Array>, message: RegExp, extra?: Partial<HandPickedCase>]
  > = [
    [
      '.textgenrc with a YAML syntax error',
      { '.textgenrc': 'profiles:\n  p: [\n' },
      /\.textgenrc: line \d+, column \d+/,
    ],
    [
      '.textgenrc.json with a JSON syntax error',
      { '.textgenrc.json': '{"profiles": {' },
      /\.textgenrc\.json: line 1, column 15: invalid JSON/,
    ],
    [
      '.textgenrc.yml with wrong types',
      { '.textgenrc.yml': 'profiles:\n  p:\n    provider: watsonx\n    url: 12\n    timeout: soon\n' },
      /profiles\.p\.url: expected a string, got a number/,
      { configLines: true },
    ],
    [
      '.textgenrc.yaml with binary junk',
      { '.textgenrc.yaml': Uint8Array.from([0xff, 0xfe, 0x00, 0x1b, 0x5b, 0x41]) },
      /\.textgenrc\.yaml/,
    ],
    [
      '.textgenrc.yaml with duplicate keys',
      { '.textgenrc.yaml': 'profiles: {}\nprofiles: {}\n' },
      /Map keys must be unique/,
    ],
    [
      '.textgenrc.yaml nested 5 000 levels',
      { '.textgenrc.yaml': `profiles: ${deepArray(5_000)}\n` },
      /nested too deeply/,
    ],
    [
      '.textgenrc.json nested 100 000 levels',
      {
        '.textgenrc.json': `{"profiles": {"p": {"provider": "watsonx", "defaults": {"parameters": ${deepObject(100_000)}}}}}`,
      },
      /nested more than 100 levels deep/,
    ],
    [
      '.textgenrc.yaml with an alias bomb',
      {
        '.textgenrc.yaml': `a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n`,
      },
      /resource exhaustion|alias/i,
    ],
    [
      '.textgenrc.yaml with a !!binary value',
      { '.textgenrc.yaml': 'profiles: !!binary aGVsbG8=\n' },
      /profiles: expected a mapping, got binary data/,
    ],
    [
      '.textgenrc.yaml with retries: 50',
      { '.textgenrc.yaml': 'profiles:\n  p: { provider: watsonx, url: "http://x", retries: 50 }\n' },
      /profiles\.p\.retries: must be at most 10/,
    ],
    [
      '.textgenrc.yaml with an unknown provider',
      { '.textgenrc.yaml': 'default_profile: p\nprofiles:\n  p: { provider: bard, url: "http://x" }\n' },
      /profiles\.p\.provider: expected one of watsonx/,
    ],
    [
      '.textgenrc.yaml with a default profile that does not exist',
      { '.textgenrc.yaml': 'default_profile: nope\nprofiles:\n  p: { provider: watsonx, url: "http://x" }\n' },
      /unknown profile "nope" \(from default_profile\)/,
    ],
    [
      '.textgenrc.yaml with a literal secret',
      {
        '.textgenrc.yaml':
          'profiles:\n  p: { provider: watsonx, url: "http://x", auth: { type: iam, apikey: s3cr3t } }\n',
      },
      /a literal secret is not allowed in a project config file/,
    ],
    [
      '.textgenrc.yaml with a password in a url',
      {
        '.textgenrc.yaml':
          'profiles:\n  p: { provider: watsonx, url: "https://admin:s3cr3t@x.example", auth: { type: none } }\n',
      },
      /profiles\.p\.url: a password in a url is not allowed in a project config file/,
    ],
    [
      'package.json with textgen of the wrong type',
      { 'package.json': '{"name": "x", "textgen": 5}' },
      /package\.json: \(top level\): expected a mapping, got a number/,
    ],
    [
      'package.json that is not JSON',
      { 'package.json': '{"name": "x",' },
      /package\.json: line 1, column 14: invalid JSON/,
    ],
    [
      'textgen.config.js with a syntax error',
      { 'textgen.config.js': 'export default { profiles: ' },
      /textgen\.config\.js: cannot load: Unexpected end of input/,
    ],
    [
      'textgen.config.mjs that throws',
      { 'textgen.config.mjs': 'throw new Error("config exploded")' },
      /textgen\.config\.mjs: cannot load: config exploded/,
    ],
    [
      'textgen.config.cjs exporting a function',
      { 'textgen.config.cjs': 'module.exports = () => ({})' },
      /expected a mapping, got a function/,
    ],
    [
      'textgen.config.js that refers to itself',
      {
        'textgen.config.js':
          'const c = { profiles: { p: { provider: "watsonx", defaults: {} } } };\nc.profiles.p.defaults.parameters = c;\nexport default c;\n',
      },
      /nested more than 100 levels deep \(or a value contains itself\)/,
    ],
    [
      'textgen.config.ts with a syntax error',
      { 'textgen.config.ts': 'export default { profiles: ' },
      /textgen\.config\.ts: line 1, column 27/,
    ],
  ];
  for (const [name, files, message, extra] of configCases)
    add({ name, args: run, config: files, code: 2, message, ...extra });
  add({
    name: '--profile that does not exist',
    args: ['--profile', 'nope', ...run],
    code: 2,
    message: /unknown profile "nope" \(from --profile\)/,
  });
  add({
    name: '--config pointing at a directory',
    args: ['--config', FILES.directory, ...run],
    code: 2,
    message: /is not a file/,
  });
  add({
    name: '--config pointing at a missing file',
    args: ['--config', 'nope.yaml', ...run],
    code: 2,
    message: /does not exist/,
  });
  add({
    name: '--config pointing at a binary file',
    args: ['--config', FILES.binary, ...run],
    code: 2,
    message: /binary\.bin/,
  });
  add({
    name: 'a user config file that is a directory',
    args: run,
    config: { 'xdg-config/textgen/config.yaml/': '' },
    code: 2,
    message: /config\.yaml: cannot read/,
  });
  add({
    name: 'a user config file with a YAML syntax error',
    args: run,
    config: { 'xdg-config/textgen/config.yaml': 'profiles: {\n' },
    code: 2,
    message: /config\.yaml: line/,
  });
  const aliasBomb = `a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n`;
  for (const [verb, args] of [
    ['add', ['profiles', 'add', 'p', '--provider', 'open-inference', '--url', 'http://127.0.0.1:9', '--no-check']],
    ['remove', ['profiles', 'remove', 'p', '--yes']],
    ['use', ['profiles', 'use', 'local']],
  ] as const) {
    add({
      name: `profiles ${verb} on a user config with an alias bomb`,
      args: [...args],
      config: { 'xdg-config/textgen/config.yaml': aliasBomb },
      code: 2,
      message: /config\.yaml: .*(alias|resource exhaustion)/i,
    });
  }
  add({
    name: 'a profile whose auth type does not fit its provider',
    args: ['--profile', 'p', ...run],
    config: {
      '.textgenrc.yaml':
        'profiles:\n  p: { provider: azure-openai, url: "http://x", auth: { type: iam, apikey_env: K } }\n',
    },
    code: 2,
    message: /auth type iam is for watsonx/,
  });

  // stdin: invalid UTF-8, enormous, empty, closed.
  for (const [label, bytes] of INVALID_UTF8) {
    add({
      name: `piped stdin with ${label}`,
      args: TEXT_GENERATE,
      stdin: Uint8Array.from(bytes),
      code: 2,
      message: /stdin is not UTF-8 text: invalid byte 0x[0-9A-F]{2} at offset \d+/,
    });
  }
  add({
    name: '--input-file - with invalid UTF-8',
    args: [...TEXT_GENERATE, '--input-file', '-'],
    stdin: Uint8Array.from([0xff]),
    code: 2,
    message: /--input-file -: stdin is not UTF-8 text: invalid byte 0xFF at offset 0/,
  });
  add({
    name: 'tokenize with invalid UTF-8 on stdin',
    args: ['tokenize', '--local', '--encoding', 'cl100k_base'],
    stdin: Uint8Array.from([0x61, 0xc3]),
    code: 2,
    message: /stdin is not UTF-8 text/,
  });
  add({
    name: '50 MB piped on stdin',
    args: TEXT_GENERATE,
    stdin: new Uint8Array(50 * 1024 * 1024).fill(0x61),
    code: 2,
    message: /stdin holds more than 16 MiB/,
    timeoutMs: 60_000,
  });
  add({ name: '2 MB piped on stdin is sent', args: [...TEXT_GENERATE, '-q'], stdin: 'word '.repeat(400_000), code: 0 });
  add({
    name: 'UTF-8 with a BOM and multi-byte characters on stdin',
    args: TEXT_GENERATE,
    stdin: '\uFEFFh\u00e9llo \u{1F600}',
    code: 0,
  });
  add({
    name: 'empty stdin and no --input',
    args: TEXT_GENERATE,
    stdin: '',
    code: 2,
    message: /missing required option: --input/,
  });
  add({
    name: 'stdin closed with CI=true and no --input',
    args: TEXT_GENERATE,
    stdin: 'closed',
    code: 2,
    message: /missing required option: --input/,
  });
  add({
    name: 'stdin really closed (fd 0 shut) and no --input',
    args: TEXT_GENERATE,
    closedFd: true,
    code: 2,
    message: /missing required option: --input/,
  });
  add({
    name: '--parameters @- with an empty stdin',
    args: [...TG_HI, '--parameters', '@-'],
    stdin: '',
    code: 2,
    message: /--parameters: stdin is empty/,
  });
  add({
    name: '--parameters @- with invalid UTF-8',
    args: [...TG_HI, '--parameters', '@-'],
    stdin: Uint8Array.from([0x7b, 0x7d, 0xff]),
    code: 2,
    message: /stdin is not UTF-8/,
  });
  add({
    name: '--parameters @- with 50 MB on stdin',
    args: [...TG_HI, '--parameters', '@-'],
    stdin: new Uint8Array(50 * 1024 * 1024).fill(0x20),
    code: 2,
    message: /more than 16 MiB/,
  });
  add({
    name: 'embed with invalid UTF-8 on stdin',
    args: [...ALEPH_EMBED, '--input-file', '-'],
    stdin: Uint8Array.from([0x61, 0xff]),
    code: 2,
    message: /not UTF-8/,
  });
  add({
    name: 'no --id-or-name and no input, CI=true',
    args: [...WATSONX, 'deployment', 'text-generate'],
    code: 2,
    message: /missing required options: --id-or-name, --input/,
  });

  for (const c of notOursCases()) add(c);

  // What the help promises -o json gives: {model, encoding, token_count, tokens, ids}.
  add({
    name: 'tokenize -o json gives tokens and ids (offline encoding)',
    args: ['tokenize', '--encoding', 'cl100k_base', '-o', 'json', 'Hello world'],
    code: 0,
    stdout: /"token_count": 2,\s*"tokens": \[\s*"Hello",\s*" world"\s*\],\s*"ids": \[\s*9906,\s*1917\s*\]/,
  });
  add({
    name: 'tokenize -o yaml gives tokens and ids (Aleph Alpha, on the service)',
    args: ['--profile', 'local-aa', 'tokenize', '-o', 'yaml', 'Hello'],
    code: 0,
    stdout: /token_count: \d+\ntokens:\n( {2}- .*\n)+ids:\n( {2}- \d+\n)+/,
  });
  return cases;
}
