/**
 * `chat --run-tool` at a terminal (a pseudo-terminal, test/helpers/pty.ts): each run is asked first, the call's
 * arguments shown; "no" sends a result saying the user declined, "yes" runs the command. --yes asks nothing.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { answer, useChatFakes } from '../helpers/chat-fake.js';
import { runOnTerminal, stripEscapes } from '../helpers/pty.js';
import { makeHome } from '../helpers/run-cli.js';

const fake = useChatFakes();
const home = makeHome();
const dir = mkdtempSync(join(tmpdir(), 'textgen-run-tool-tty-'));
afterAll(() => {
  home.cleanup();
  rmSync(dir, { recursive: true, force: true });
});
const tool = join(dir, 'echo.mjs');
writeFileSync(tool, 'process.stdin.pipe(process.stdout);\n');

const TOOLS = JSON.stringify([{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }]);
const CALL = { id: 'call_1', name: 'get_weather', arguments: '{"city":"Lisbon"}' };

async function session(keys: string | undefined, extra: string[] = []) {
  const server = await fake([answer('openai', null, [CALL]), answer('openai', 'Done.')]);
  const args = [
    '--provider',
    'openai',
    '--url',
    server.url,
    'chat',
    '-m',
    'm',
    '--no-stream',
    '--tools',
    TOOLS,
    '--run-tool',
    `get_weather=node ${tool}`,
    ...extra,
    'Weather?',
  ];
  const run = await runOnTerminal(args, home.env, {
    steps: keys === undefined ? [] : [{ waitFor: /run get_weather .*\?/, keys }],
  });
  return { run, screen: stripEscapes(run.screen), server };
}

const toolContent = (server: { requests: Array<{ json: unknown }> }) =>
  (server.requests[1]?.json as { messages: Array<{ role: string; content: string }> } | undefined)?.messages.at(-1);

describe('--run-tool on a terminal', () => {
  it('asks before running, showing the command and the arguments; "no" sends a declined result', async () => {
    const { run, screen, server } = await session('n\r');
    expect(run.exitCode).toBe(0);
    expect(screen).toContain(`run get_weather (node ${tool}) with {"city":"Lisbon"}?`);
    expect(screen).toContain('Done.');
    expect(toolContent(server)).toEqual({
      role: 'tool',
      tool_call_id: 'call_1',
      content: 'error: the user declined to run this tool',
    });
  });

  it('"yes" runs the command', async () => {
    const { run, server } = await session('y\r');
    expect(run.exitCode).toBe(0);
    expect(toolContent(server)?.content).toBe('{"city":"Lisbon"}');
  });

  it('--yes runs without asking', async () => {
    const { run, screen, server } = await session(undefined, ['--yes']);
    expect(run.exitCode).toBe(0);
    expect(screen).not.toMatch(/run get_weather .*\?/);
    expect(toolContent(server)?.content).toBe('{"city":"Lisbon"}');
  });
});
