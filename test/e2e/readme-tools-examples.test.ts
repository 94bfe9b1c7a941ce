/**
 * The README's tool and structured-output examples ("Tools and structured output"), run as written — with
 * `textgen` the built CLI — against a scripted OpenAI-compatible server standing in for a model that calls tools
 * and answers in JSON (TEXTGEN_URL points the built-in local-openai profile at it). docs-examples.test.ts lists
 * these blocks as not run there: the embedded server's deterministic engine is not that model.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { answer, type FakeRequest, useChatFakes } from '../helpers/chat-fake.js';
import { shellExamples } from '../helpers/markdown-examples.js';
import { BIN, baseEnv, makeHome } from '../helpers/run-cli.js';

const ROOT = resolve(import.meta.dirname, '../..');
const examples = shellExamples(join(ROOT, 'README.md'), 'README.md').filter((e) =>
  e.notRun?.includes('readme-tools-examples.test.ts'),
);

const fake = useChatFakes();
const home = makeHome();
const bin = mkdtempSync(join(tmpdir(), 'textgen-readme-tools-bin-'));
afterAll(() => {
  home.cleanup();
  rmSync(bin, { recursive: true, force: true });
});
writeFileSync(join(bin, 'textgen'), `#!/usr/bin/env bash\nexec node ${JSON.stringify(BIN)} "$@"\n`);
chmodSync(join(bin, 'textgen'), 0o755);

/** A model that calls get_weather, answers once the result is in, and answers in JSON when a format is asked. */
function model(req: FakeRequest) {
  const body = req.json as { messages: Array<{ role: string }>; response_format?: unknown };
  if (body.response_format !== undefined) return answer('openai', '{"city": "Lisbon", "population": 545796}');
  if (body.messages.some((m) => m.role === 'tool')) return answer('openai', 'It is sunny in Lisbon, 24 °C.');
  return answer('openai', null, [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Lisbon"}' }]);
}

async function runExample(script: string) {
  const server = await fake(model);
  const dir = mkdtempSync(join(tmpdir(), 'textgen-readme-tools-'));
  try {
    const r = await execa('bash', ['-c', `set -eo pipefail\n${script}`], {
      cwd: dir,
      env: {
        ...baseEnv(),
        ...home.env,
        CI: 'true',
        NO_COLOR: '1',
        TEXTGEN_URL: server.url,
        PATH: `${bin}:${process.env.PATH}`,
      },
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
      timeout: 60_000,
      stripFinalNewline: false,
    });
    return { ...r, requests: server.requests };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("the README's tool examples run", () => {
  it('there are two: the --run-tool loop and the --json-schema pipe into jq', () => {
    expect(examples.map((e) => /--run-tool|--json-schema/.exec(e.script)?.[0])).toEqual([
      '--run-tool',
      '--json-schema',
    ]);
  });

  it('the --run-tool loop: the tool runs on the call, its output goes back, the answer is printed', async () => {
    const r = await runExample(examples[0]!.script);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('It is sunny in Lisbon, 24 °C.\n');
    expect(r.requests).toHaveLength(2);
    const tool = (r.requests[1]!.json as { messages: Array<{ role: string; content: string }> }).messages.at(-1);
    expect(tool).toEqual({
      role: 'tool',
      tool_call_id: 'call_1',
      content: '{"city":"Lisbon","sky":"sunny","celsius":24}\n',
    });
  });

  it('the --json-schema pipe: jq reads the document', async () => {
    const r = await runExample(examples[1]!.script);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('Lisbon\n');
  });
});
