/**
 * The pure parts of tools in chat: --run-tool's command split (execa's parseCommandString is the oracle), the wire
 * fields each dialect gets, tool calls read from whole answers and streamed deltas assembled by index.
 */
import { parseCommandString } from 'execa';
import { describe, expect, test } from 'vitest';
import { ChatAggregator } from '../../src/chat/aggregate.js';
import { toolCallLine } from '../../src/chat/present.js';
import { splitCommand } from '../../src/chat/tool-runner.js';
import { checkToolResults } from '../../src/chat/messages.js';
import { checkChatFeatures } from '../../src/chat/support.js';
import {
  chatCompletionsFields,
  createChatCompletionsDecoder,
  OPENAI_CHAT_FEATURES,
  OPENAI_CHAT_PARAMETERS,
  openAiStyleError,
  parseChatCompletion,
} from '../../profiles/common/chat-completions.js';
import type { ChatRequest } from '../../src/contract/chat.js';

describe('--run-tool COMMAND is split as execa splits it', () => {
  test.each([
    'node tool.js',
    '  node   tool.js  --flag  ',
    'node my\\ tool.js a\\ b\\ c d',
    'a\\\\ b',
    'single',
    'trailing\\ ',
  ])('%j', (command) => {
    expect(splitCommand(command)).toEqual(parseCommandString(command));
  });
});

const request: ChatRequest = {
  messages: [
    { role: 'user', content: 'Weather?' },
    {
      role: 'assistant',
      content: '',
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'w', arguments: '{}' } }],
    },
    { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
  ],
  parameters: {},
  tools: [{ type: 'function', function: { name: 'w', parameters: { type: 'object' }, strict: true } }],
  tool_choice: 'required',
  parallel_tool_calls: false,
};

describe('the wire fields', () => {
  test('OpenAI-shaped: tool_choice as given, strict kept, the assistant turn without empty content', () => {
    const body = chatCompletionsFields(request);
    expect(body.messages).toEqual([
      { role: 'user', content: 'Weather?' },
      { role: 'assistant', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'w', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
    ]);
    expect(body.tools).toEqual([
      { type: 'function', function: { name: 'w', parameters: { type: 'object' }, strict: true } },
    ]);
    expect(body.tool_choice).toBe('required');
    expect(body.parallel_tool_calls).toBe(false);
  });

  test('watsonx: a word in tool_choice_option, a name in tool_choice, never both; no strict', () => {
    const words = chatCompletionsFields(request, 'watsonx');
    expect(words.tool_choice_option).toBe('required');
    expect(words).not.toHaveProperty('tool_choice');
    expect(words.tools).toEqual([{ type: 'function', function: { name: 'w', parameters: { type: 'object' } } }]);
    const named = chatCompletionsFields({ ...request, tool_choice: { function: 'w' } }, 'watsonx');
    expect(named.tool_choice).toEqual({ type: 'function', function: { name: 'w' } });
    expect(named).not.toHaveProperty('tool_choice_option');
  });
});

describe('tool calls in answers', () => {
  test('a whole answer: calls read, arguments given as an object re-serialised, a missing id made up', () => {
    const result = parseChatCompletion('openai', {
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [{ type: 'function', function: { name: 'w', arguments: { city: 'Lisbon' } } }],
          },
          finish_reason: 'tool_calls',
        },
      ],
    });
    expect(result.choices[0]!.message.tool_calls).toEqual([
      { id: 'call_0', type: 'function', function: { name: 'w', arguments: '{"city":"Lisbon"}' } },
    ]);
  });

  test('streamed pieces of two calls, interleaved, are assembled by index', () => {
    const decode = createChatCompletionsDecoder('openai', openAiStyleError);
    const agg = new ChatAggregator('openai');
    const events = [
      {
        choices: [
          { index: 0, delta: { tool_calls: [{ index: 0, id: 'a', function: { name: 'one', arguments: '' } }] } },
        ],
      },
      {
        choices: [
          { index: 0, delta: { tool_calls: [{ index: 1, id: 'b', function: { name: 'two', arguments: '{"x"' } }] } },
        ],
      },
      { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '{"y":' } }] } }] },
      { choices: [{ index: 0, delta: { tool_calls: [{ index: 1, function: { arguments: ':1}' } }] } }] },
      { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '2}' } }] } }] },
      { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
    ];
    for (const e of events) {
      const step = decode({ data: JSON.stringify(e) } as never);
      if (step.type === 'chunk') agg.add(step.chunk);
    }
    const choice = agg.result().choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.tool_calls).toEqual([
      { id: 'a', type: 'function', function: { name: 'one', arguments: '{"y":2}' } },
      { id: 'b', type: 'function', function: { name: 'two', arguments: '{"x":1}' } },
    ]);
  });

  test('a call as text output: arguments parsed, or kept as a string with a warning', () => {
    const call = { id: 'a', type: 'function' as const, function: { name: 'w', arguments: '{"a":1}' } };
    expect(toolCallLine(call)).toEqual({ line: '{"id":"a","name":"w","arguments":{"a":1}}' });
    const broken = toolCallLine({ ...call, function: { name: 'w', arguments: '{"a":' } });
    expect(broken.line).toBe('{"id":"a","name":"w","arguments":"{\\"a\\":"}');
    expect(broken.warning).toMatch(/not JSON/);
  });

  test('a tool result must answer a call of the assistant turn before it', () => {
    expect(() => checkToolResults(request.messages)).not.toThrow();
    expect(() => checkToolResults([{ role: 'tool', tool_call_id: 'x', content: '' }])).toThrow(/answers no call/);
  });
});

describe('the capability matrix', () => {
  const tools = request.tools;
  const quiet = { ignoreUnsupported: false, warn: () => undefined };
  test('a chat operation that does not list its features takes none: tools are a usage error naming it', () => {
    expect(() => checkChatFeatures({ tools }, { parameters: OPENAI_CHAT_PARAMETERS }, 'acme', quiet)).toThrow(
      /tools \(--tools\) are not supported by acme chat/,
    );
  });
  test('native features pass; an unsupported parallel_tool_calls is dropped only with --ignore-unsupported', () => {
    const caps = {
      parameters: OPENAI_CHAT_PARAMETERS,
      features: { ...OPENAI_CHAT_FEATURES, parallel_tool_calls: 'unsupported' as const },
    };
    expect(checkChatFeatures({ tools, tool_choice: 'auto' }, caps, 'x', quiet)).toEqual({ tools, tool_choice: 'auto' });
    expect(() => checkChatFeatures({ tools, parallel_tool_calls: true }, caps, 'x', quiet)).toThrow(
      /--parallel-tool-calls is not supported by x chat/,
    );
    const warned: string[] = [];
    expect(
      checkChatFeatures({ tools, parallel_tool_calls: true }, caps, 'x', {
        ignoreUnsupported: true,
        warn: (m) => warned.push(m),
      }),
    ).toEqual({ tools });
    expect(warned).toEqual(['ignoring --parallel-tool-calls: it is not supported by x chat']);
  });
});
