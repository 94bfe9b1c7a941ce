/** The flag → canonical chat parameter mapping, message gathering, and the check against a provider's chat. */
import { describe, expect, test } from 'vitest';
import { UsageError } from '../../src/contract/errors.js';
import { buildChatParameters } from '../../src/chat/parameters.js';
import { assembleConversation, checkMessageList, parseMessageFlag } from '../../src/chat/messages.js';
import { checkChatSupport } from '../../src/chat/support.js';
import { OPENAI_CHAT_FEATURES, OPENAI_CHAT_PARAMETERS } from '../../profiles/common/chat-completions.js';

const io = { cwd: '/' };

describe('chat parameters', () => {
  test('the flags of complete map to the canonical names and override --parameters field by field', async () => {
    const p = await buildChatParameters(
      {
        parameters: '{"max_tokens": 5, "temperature": 1, "presence_penalty": 0.5}',
        maxTokens: '9',
        temperature: '0.2',
        topP: '0.9',
        stop: ['a', 'b'],
        seed: '7',
        choices: '2',
        logprobs: '3',
      },
      io,
    );
    expect(p).toEqual({
      max_tokens: 9,
      temperature: 0.2,
      presence_penalty: 0.5,
      top_p: 0.9,
      stop: ['a', 'b'],
      seed: 7,
      n: 2,
      logprobs: true,
      top_logprobs: 3,
    });
  });

  test('--logprobs alone asks for log-probabilities without alternatives; --top-logprobs N implies them', async () => {
    expect(await buildChatParameters({ logprobs: true }, io)).toEqual({ logprobs: true });
    expect(await buildChatParameters({ topLogprobs: '4' }, io)).toEqual({ top_logprobs: 4 });
  });

  test.each([
    [{ maxTokens: '0' }, /--max-tokens must be an integer of 1 or more, got 0/],
    [{ maxTokens: '1.5' }, /--max-tokens must be an integer/],
    [{ topP: '0' }, /--top-p must be a number greater than 0/],
    [{ choices: '200' }, /--choices must be an integer from 1 to 128/],
    [{ logprobs: 'Hello' }, /--logprobs takes a number of alternatives/],
    [{ logprobs: '2', topLogprobs: '3' }, /give the number of alternatives once/],
    [{ parameters: '{"seed": "x"}' }, /--parameters: seed must be an integer, got "x"/],
    [{ parameters: '[1]' }, /--parameters must be a JSON object/],
  ])('%o is a usage error', async (options, message) => {
    await expect(buildChatParameters(options, io)).rejects.toThrow(message);
  });
});

describe('messages', () => {
  test('--message ROLE=TEXT keeps everything after the first "="', () => {
    expect(parseMessageFlag('user=a=b')).toEqual({ role: 'user', content: 'a=b' });
    expect(parseMessageFlag('Assistant=')).toEqual({ role: 'assistant', content: '' });
    expect(() => parseMessageFlag('hello')).toThrow(UsageError);
  });

  test('an empty list is refused; a good one is kept in order', () => {
    expect(() => checkMessageList([], '--messages')).toThrow(/empty array/);
    expect(checkMessageList([{ role: 'user', content: 'x' }], '--messages')).toEqual([{ role: 'user', content: 'x' }]);
  });

  test('--system replaces the system message of a continued conversation, or goes first', () => {
    const history = [
      { role: 'system' as const, content: 'old' },
      { role: 'user' as const, content: 'a' },
    ];
    expect(assembleConversation(history, 'new', [{ role: 'user', content: 'b' }])).toEqual([
      { role: 'system', content: 'new' },
      { role: 'user', content: 'a' },
      { role: 'user', content: 'b' },
    ]);
    expect(assembleConversation([{ role: 'user', content: 'a' }], 'sys', [])[0]).toEqual({
      role: 'system',
      content: 'sys',
    });
  });
});

describe('support', () => {
  const caps = {
    parameters: { ...OPENAI_CHAT_PARAMETERS },
    features: OPENAI_CHAT_FEATURES,
    maxStop: 4,
    maxTopLogprobs: 20,
  };
  const quiet = { ignoreUnsupported: false, warn: () => undefined };

  test('limits of the service are usage errors before anything is sent', () => {
    expect(() => checkChatSupport({ stop: ['a', 'b', 'c', 'd', 'e'] }, caps, 'openai', quiet)).toThrow(
      /at most 4 stop sequences, got 5/,
    );
    expect(() => checkChatSupport({ top_logprobs: 20 }, { ...caps, maxTopLogprobs: 5 }, 'x', quiet)).toThrow(
      /at most 5 alternatives/,
    );
  });

  test('an unsupported parameter names itself; with --ignore-unsupported it is dropped and warned about', () => {
    expect(() => checkChatSupport({ time_limit: 100, max_tokens: 3 }, caps, 'openai', quiet)).toThrow(
      /parameter time_limit is not supported by openai chat/,
    );
    const warnings: string[] = [];
    expect(
      checkChatSupport({ time_limit: 100, max_tokens: 3 }, caps, 'openai', {
        ignoreUnsupported: true,
        warn: (m) => warnings.push(m),
      }),
    ).toEqual({ max_tokens: 3 });
    expect(warnings).toEqual(['ignoring time_limit: it is not supported by openai chat']);
  });
});
