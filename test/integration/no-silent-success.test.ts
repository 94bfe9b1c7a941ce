/**
 * No silent success, for every provider and every command that asks a service: a 2xx answer that is not the
 * protocol's shape is exit 4 with one line naming the provider, the field that was expected and a short excerpt of
 * what came (secrets masked); an error answer in a shape of its own still shows the server's own words (first line,
 * bounded). The rows come from the registry, so a provider or a capability added later is covered too.
 */
import { writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ProviderKind } from '../../src/contract/profile.js';
import { adapterFor, allAdapters } from '../../profiles/registry.js';
import { makeHome, runInProcess } from '../helpers/run-cli.js';
import { useTinyServers } from '../helpers/tiny-server.js';

const serve = useTinyServers();
const home = makeHome();
afterAll(() => {
  home.cleanup();
  streamingHome.cleanup();
});
const SECRET = 'sk-NO-SILENT-SUCCESS-0123456789';
const SPACE = '0b7f0000-0000-4000-8000-000000000001';

/** A 2xx JSON answer of nobody's protocol that quotes the request's credentials back, as an echo server does. */
const FOREIGN = JSON.stringify({
  headers: { authorization: `Bearer ${SECRET}`, 'api-key': SECRET },
  note: 'not this protocol',
});
/** What a web page on the URL answers to everything: 200 and a sign-in page. */
const PAGE =
  '<!DOCTYPE html>\n<html><head><title>Sign in to the portal</title></head><body><h1>Welcome</h1></body></html>\n';

type Command =
  | 'generate'
  | 'stream'
  | 'embed'
  | 'models'
  | 'health'
  | 'tokenize'
  | 'detokenize'
  | 'evaluate'
  | 'explain'
  | 'qa'
  | 'summarize';

function argsFor(command: Command): string[] {
  switch (command) {
    case 'generate':
      return ['deployment', 'text-generate', '--id-or-name', 'm1', '--input', 'Hi'];
    case 'stream':
      return ['deployment', 'text-generate', '--id-or-name', 'm1', '--input', 'Hi', '--stream'];
    case 'embed':
      return ['embed', '-m', 'm1', 'Hi'];
    case 'models':
      return ['models'];
    case 'health':
      return ['health'];
    case 'tokenize':
      return ['tokenize', '-m', 'm1', 'Hi'];
    case 'detokenize':
      return ['detokenize', '-m', 'm1', '1', '2'];
    case 'evaluate':
      return ['evaluate', '-m', 'm1', '--prompt', 'A', '--expected', ' b'];
    case 'explain':
      return ['explain', '-m', 'm1', '--prompt', 'Rivers carry water.', '--target', ' Water'];
    case 'qa':
      return ['qa', '--query', 'Who?', '--document', 'Ann likes soup.'];
    case 'summarize':
      return ['summarize', '--document', 'Rivers carry water.'];
  }
}

/** The field each answer must have, as the message names it. */
const EXPECTED: Partial<Record<ProviderKind, Partial<Record<Command, RegExp>>>> = {
  watsonx: {
    generate: /"results"/,
    stream: /"results"/,
    embed: /"results"/,
    models: /"resources"/,
    tokenize: /"result\.token_count"/,
    health: /not JSON/,
  },
  'azure-openai': { generate: /"choices"/, stream: /"choices"/, embed: /"data"/, models: /"data"/, health: /not JSON/ },
  openai: { generate: /"choices"/, stream: /"choices"/, embed: /"data"/, models: /"data"/, health: /not JSON/ },
  'aleph-alpha': {
    generate: /"completions"/,
    stream: /"type"/,
    embed: /"embeddings"/,
    models: /JSON array/,
    tokenize: /"token_ids"/,
    detokenize: /"result"/,
    evaluate: /"result"/,
    explain: /"explanations"/,
    qa: /"answers"/,
    summarize: /"summary"/,
    health: /version number/,
  },
  'open-inference': { generate: /"text_output"/, stream: /"text_output"/, models: /"models"/, health: /not JSON/ },
};

interface Row {
  kind: ProviderKind;
  command: Command;
  field: RegExp;
}

function rows(): Row[] {
  const out: Row[] = [];
  for (const adapter of allAdapters()) {
    const commands: Command[] = ['generate', 'stream', 'models', 'health'];
    if (adapter.embed) commands.push('embed');
    if (adapter.tokenize) commands.push('tokenize');
    if (adapter.kind === 'aleph-alpha') commands.push('detokenize');
    for (const task of ['evaluate', 'explain', 'qa', 'summarize'] as const)
      if (adapter.tasks?.[task]) commands.push(task);
    for (const command of commands) {
      const field = EXPECTED[adapter.kind]?.[command];
      if (!field) throw new Error(`no expected field for ${adapter.kind} ${command}: add it to EXPECTED`);
      out.push({ kind: adapter.kind, command, field });
    }
  }
  return out;
}

function credentials(kind: ProviderKind): string[] {
  return kind === 'azure-openai' ? ['--api-key', SECRET] : ['--token', SECRET];
}

function answerWith(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'content-type': type });
  res.end(body);
}

/** Protocols that stream only when the profile says the server can (Aleph Alpha): a config file that says so. */
const streamingHome = makeHome();

async function run(kind: ProviderKind, command: Command, url: string) {
  const env = { ...home.env, TEXTGEN_SPACE_ID: SPACE };
  if (command === 'stream' && (await adapterFor(kind).generate()).capabilities.streaming === 'profile') {
    writeFileSync(
      join(streamingHome.dir, '.textgenrc.yaml'),
      `profiles:\n  s:\n    provider: ${kind}\n    url: ${url}\n    streaming: true\n    auth: { type: bearer, token_env: S_TOKEN }\n`,
    );
    return runInProcess(['--profile', 's', '--retries', '0', ...argsFor(command)], {
      // A project file outside this HOME, so trusted by name (README, "Trusting a project's config").
      env: { ...env, S_TOKEN: SECRET, TEXTGEN_TRUST: join(streamingHome.dir, '.textgenrc.yaml') },
      cwd: streamingHome.dir,
    });
  }
  return runInProcess(
    ['--provider', kind, '--url', url, ...credentials(kind), '--retries', '0', '--no-interactive', ...argsFor(command)],
    { env },
  );
}

describe('a 2xx answer that is not the protocol is exit 4, naming provider, field and what came', () => {
  it.each(rows().map((r) => [`${r.kind} ${r.command}`, r] as const))('%s', async (_, { kind, command, field }) => {
    const server = await serve((_req, res) => {
      if (command === 'health') return answerWith(res, 200, 'text/html', PAGE);
      if (command === 'stream') {
        return answerWith(res, 200, 'text/event-stream', `data: ${FOREIGN}\n\ndata: ${FOREIGN}\n\n`);
      }
      answerWith(res, 200, 'application/json', FOREIGN);
    });
    const r = await run(kind, command, server.url);
    expect(r.exitCode, r.stderr + r.stdout).toBe(4);
    const said = command === 'health' ? r.stdout : r.stderr;
    const line = said.split('\n').find((l) => l.includes('unexpected answer'));
    expect(line, said).toBeDefined();
    expect(line).toContain(`${kind} returned HTTP 200: unexpected answer`);
    expect(line).toMatch(field);
    expect(line).toMatch(command === 'health' ? /got: <!DOCTYPE html>/ : /got: (data: )?\{"headers":/);
    expect(r.stderr + r.stdout).not.toContain(SECRET);
    if (command !== 'health') expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('a chat-completions answer to a completions call is exit 4, said so', () => {
  const chat = {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'm1',
    choices: [{ index: 0, message: { role: 'assistant', content: 'Hello there' }, finish_reason: 'stop' }],
  };
  const chunk = (delta: unknown, finish: string | null) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm1', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  it.each([
    ['openai', 'generate'],
    ['openai', 'stream'],
    ['azure-openai', 'generate'],
    ['azure-openai', 'stream'],
  ] as const)('%s %s', async (kind, command) => {
    const server = await serve((req, res) => {
      if ((req.headers.accept ?? '').includes('text/event-stream')) {
        return answerWith(
          res,
          200,
          'text/event-stream',
          `${chunk({ role: 'assistant', content: '' }, null)}${chunk({ content: 'Hello' }, null)}${chunk({}, 'stop')}data: [DONE]\n\n`,
        );
      }
      answerWith(res, 200, 'application/json', JSON.stringify(chat));
    });
    const r = await run(kind, command, server.url);
    expect(r.exitCode, r.stderr).toBe(4);
    expect(r.stdout).toBe('');
    const key = command === 'stream' ? 'delta' : 'message';
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^error: ${kind} returned HTTP 200: unexpected answer: choices\\[0\\] has no "text" string but a "${key}": the chat-completions shape, where textgen calls completions \\(/completions\\) — got: ${command === 'stream' ? 'data: ' : ''}\\{"id":"chatcmpl-1","object":"chat\\.completion.{0,80}…$`,
      ),
    );
  });
});

describe("an error answer in a shape of its own shows the server's words", () => {
  const bodies: Array<[string, string, string, RegExp, RegExp | undefined]> = [
    [
      'an "error" string',
      'application/json',
      JSON.stringify({ error: 'model "m1" not found, try pulling it first' }),
      /: model "m1" not found, try pulling it first$/m,
      undefined,
    ],
    [
      'a plain-text 404',
      'text/plain',
      '404 page not found\nrouted by the mesh\n',
      /: 404 page not found \(the server has no (?:GET|POST) \/\S*\)$/m,
      /routed by the mesh/,
    ],
    [
      'an HTML page',
      'text/html',
      '<html>\r\n<head><title>404 Not Found</title></head>\r\n<body><center><h1>404 Not Found</h1></center><hr><center>nginx</center></body></html>',
      /: 404 Not Found \(the server has no (?:GET|POST) \/\S*\)$/m,
      /nginx|<html>/,
    ],
    [
      "FastAPI's detail",
      'application/json',
      JSON.stringify({ detail: 'Not Found' }),
      /: Not Found \(the server has no (?:GET|POST) \/\S*\)$/m,
      /detail/,
    ],
    ['a long line', 'text/plain', `${'x'.repeat(500)}\n`, /: x{200}…$/m, /x{201}/],
  ];
  const kinds = allAdapters().map((a) => a.kind);
  it.each(kinds.flatMap((kind) => bodies.map((b) => [kind, ...b] as const)))(
    '%s: %s',
    async (kind, _, type, body, shown, hidden) => {
      const server = await serve((_req, res) => answerWith(res, 404, type, body));
      // An Open Inference listing that meets 404 tries the other list route and then says neither exists.
      for (const command of kind === 'open-inference' ? (['generate'] as const) : (['generate', 'models'] as const)) {
        const r = await run(kind, command, server.url);
        expect(r.exitCode, r.stderr).toBe(4);
        expect(r.stderr).toMatch(new RegExp(`^error: ${kind} returned HTTP 404`));
        expect(r.stderr).toMatch(shown);
        if (hidden) expect(r.stderr).not.toMatch(hidden);
      }
    },
  );
});
