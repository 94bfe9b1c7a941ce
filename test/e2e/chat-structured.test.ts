/**
 * Structured output in `chat` through the built binary against scripted servers: `--json-schema` and
 * `--response-format` on each dialect's wire (checked against the chat contracts), the answer checked locally
 * (exit 4 with the first error's JSON pointer), `--schema-retries` sending the errors back, and text output that
 * is the JSON document alone, so `| jq` works.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { answer, expectValidChat, type FakeReply, KINDS, type Kind, useChatFakes } from '../helpers/chat-fake.js';
import { makeHome, runBin } from '../helpers/run-cli.js';

const fake = useChatFakes();
const home = makeHome();
const dir = mkdtempSync(join(tmpdir(), 'textgen-structured-'));
afterAll(() => {
  home.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' }, population: { type: 'integer', minimum: 0 } },
  required: ['city', 'population'],
  additionalProperties: false,
};
writeFileSync(join(dir, 'city.json'), JSON.stringify({ name: 'city', strict: true, schema: SCHEMA }));
writeFileSync(join(dir, 'bare.json'), JSON.stringify(SCHEMA));

async function serve(script: FakeReply[]) {
  const server = await fake(script);
  mkdirSync(join(home.dir, 'config', 'textgen'), { recursive: true });
  writeFileSync(
    join(home.dir, 'config', 'textgen', 'config.yaml'),
    [
      'profiles:',
      `  watsonx: { provider: watsonx, url: "${server.url}", space_id: sp-1 }`,
      `  azure-openai: { provider: azure-openai, url: "${server.url}" }`,
      `  openai: { provider: openai, url: "${server.url}" }`,
      `  aleph-alpha: { provider: aleph-alpha, url: "${server.url}", chat: true }`,
      '',
    ].join('\n'),
  );
  return server;
}

const cli = (kind: Kind, args: string[]) =>
  runBin(['--profile', kind, '--retries', '0', 'chat', '-m', 'm', ...args], { env: home.env, cwd: dir });

const GOOD = '{"city": "Lisbon", "population": 545000}';

describe('--json-schema on every dialect', () => {
  for (const kind of KINDS) {
    it(`${kind}: response_format json_schema {name, schema, strict} goes out; stdout is the document alone`, async () => {
      const server = await serve([answer(kind, `\n${GOOD}\n`)]);
      const r = await cli(kind, ['--json-schema', '@city.json', 'The biggest city of Portugal?']);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toBe(`${GOOD}\n`);
      expect(JSON.parse(r.stdout)).toEqual({ city: 'Lisbon', population: 545000 });
      expect((server.requests[0]!.json as Record<string, unknown>).response_format).toEqual({
        type: 'json_schema',
        json_schema: { name: 'city', schema: SCHEMA, strict: true },
      });
      expectValidChat(kind, server.requests);
    });
  }

  it('a bare schema file takes its name from --schema-name, or "response"', async () => {
    for (const [args, name] of [
      [[], 'response'],
      [['--schema-name', 'place'], 'place'],
    ] as const) {
      const server = await serve([answer('openai', GOOD)]);
      const r = await cli('openai', ['--json-schema', '@bare.json', ...args, 'Biggest city?']);
      expect(r.exitCode, r.stderr).toBe(0);
      expect((server.requests[0]!.json as { response_format: unknown }).response_format).toEqual({
        type: 'json_schema',
        json_schema: { name, schema: SCHEMA },
      });
    }
  });

  it('--response-format json_object goes out as {type: json_object}', async () => {
    for (const kind of KINDS) {
      const server = await serve([answer(kind, '{"a": 1}')]);
      const r = await cli(kind, ['--response-format', 'json_object', 'JSON please']);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toBe('{"a": 1}\n');
      expect((server.requests[0]!.json as { response_format: unknown }).response_format).toEqual({
        type: 'json_object',
      });
      expectValidChat(kind, server.requests);
    }
  });
});

describe('the answer is checked', () => {
  it('an answer that does not match: exit 4, the first error with its JSON pointer, nothing on stdout', async () => {
    const server = await serve([answer('openai', '{"city": "Lisbon", "population": -3}')]);
    const r = await cli('openai', ['--json-schema', '@city.json', 'Biggest city?']);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(/^error: the answer does not match the schema at \/population: must be >= 0\n/);
    expect(r.stdout).toBe('');
    expect(server.requests).toHaveLength(1);
  });

  it('--schema-retries sends the errors back and asks again; a good second answer is printed', async () => {
    const bad = '{"city": "Lisbon"}';
    const server = await serve([answer('watsonx', bad), answer('watsonx', GOOD)]);
    const r = await cli('watsonx', ['--json-schema', '@city.json', '--schema-retries', '2', 'Biggest city?']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${GOOD}\n`);
    expect(r.stderr).toMatch(
      /warning: the answer does not match the schema at \/: must have required property 'population'; asking again/,
    );
    const messages = (server.requests[1]!.json as { messages: Array<{ role: string; content: string }> }).messages;
    expect(messages.slice(-2)).toEqual([
      { role: 'assistant', content: bad },
      {
        role: 'user',
        content: expect.stringMatching(
          /must have required property 'population'.*Answer again with only the corrected JSON/,
        ),
      },
    ]);
    expectValidChat('watsonx', server.requests);
  });

  it('still wrong after the retries: exit 4', async () => {
    const server = await serve([answer('openai', 'not json at all')]);
    const r = await cli('openai', ['--json-schema', '@city.json', '--schema-retries', '1', 'Biggest city?']);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(/error: the answer is not JSON \(.*\)\nhint: still wrong after 1 retry\n$/);
    expect(server.requests).toHaveLength(2);
  });

  it('a json_object answer that is not JSON is exit 4 too', async () => {
    await serve([answer('openai', 'Sure! Here it is: {"a": 1}')]);
    const r = await cli('openai', ['--response-format', 'json_object', 'JSON please']);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(/^error: the answer is not JSON/);
  });

  it('-o json prints the canonical result of the answer that checked out', async () => {
    await serve([answer('aleph-alpha', GOOD)]);
    const r = await cli('aleph-alpha', ['--json-schema', '@city.json', '-o', 'json', 'Biggest city?']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(JSON.parse(r.stdout).choices[0].message.content)).toEqual({ city: 'Lisbon', population: 545000 });
  });
});

describe('--batch', () => {
  it("a line's answer is checked against its format: one that is not JSON is the line's error, exit code 4", async () => {
    await serve([answer('openai', GOOD), answer('openai', 'no JSON here')]);
    const lines = [
      JSON.stringify({ id: 'a', messages: [{ role: 'user', content: 'A city?' }] }),
      JSON.stringify({
        id: 'b',
        messages: [{ role: 'user', content: 'A city?' }],
        response_format: { type: 'json_object' },
      }),
    ].join('\n');
    const r = await runBin(
      [
        '--profile',
        'openai',
        '--retries',
        '0',
        'chat',
        '-m',
        'm',
        '--json-schema',
        '@city.json',
        '--batch',
        '-',
        '--concurrency',
        '1',
      ],
      { env: home.env, cwd: dir, input: `${lines}\n` },
    );
    const records = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(records[0].result.choices[0].message.content).toBe(GOOD);
    expect(records[1].error).toMatchObject({ exit_code: 4, message: expect.stringMatching(/^the answer is not JSON/) });
  });

  it('--schema-retries is refused with --batch', async () => {
    const server = await serve([answer('openai', GOOD)]);
    const r = await cli('openai', ['--json-schema', '@city.json', '--schema-retries', '1', '--batch', 'none.jsonl']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--schema-retries/);
    expect(server.requests).toHaveLength(0);
  });
});

describe('usage errors before anything is sent (exit 2)', () => {
  const cases: Array<[string, string[], RegExp]> = [
    [
      'an unknown format',
      ['--response-format', 'yaml'],
      /--response-format must be one of text, json_object, json_schema/,
    ],
    [
      'json_schema without a schema',
      ['--response-format', 'json_schema'],
      /needs the schema: give it with --json-schema/,
    ],
    [
      'a schema that is not one',
      ['--json-schema', '{"type": 5}'],
      /--json-schema is not a valid JSON Schema at \/type/,
    ],
    [
      'a format that contradicts the schema',
      ['--json-schema', '@bare.json', '--response-format', 'json_object'],
      /--json-schema asks for json_schema/,
    ],
    [
      'retries without a structured answer',
      ['--schema-retries', '2'],
      /--schema-retries applies to structured answers/,
    ],
    ['a bad schema name', ['--json-schema', '@bare.json', '--schema-name', 'a b'], /the schema name must be 1 to 64/],
  ];
  for (const [name, args, message] of cases) {
    it(name, async () => {
      const server = await serve([answer('openai', GOOD)]);
      const r = await cli('openai', [...args, 'Hi']);
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(server.requests).toHaveLength(0);
    });
  }
});
