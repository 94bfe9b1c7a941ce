import { describe, expect, it } from 'vitest';
import { Interrupted, UsageError } from '../../src/contract/errors.js';
import { asInterrupted } from '../../src/prompt/inquirer-prompter.js';
import { refusingPrompter } from '../../src/prompt/prompter.js';
import { redactProfile } from '../../src/profiles/redact-profile.js';

describe('prompter', () => {
  it.each(['text', 'password', 'multiline', 'confirm'] as const)(
    'a non-interactive prompter refuses %s with a usage error',
    async (method) => {
      await expect(refusingPrompter()[method]('Model:')).rejects.toBeInstanceOf(UsageError);
    },
  );

  it.each([
    ['ExitPromptError', true],
    ['AbortPromptError', true],
    ['TypeError', false],
  ])('%s maps to Interrupted: %s', (name, interrupted) => {
    const e = Object.assign(new Error('x'), { name });
    expect(asInterrupted(e) instanceof Interrupted).toBe(interrupted);
  });
});

describe('redactProfile', () => {
  it.each([
    [
      { type: 'iam' as const, apikey: 'k' },
      { type: 'iam', apikey: '***' },
    ],
    [
      { type: 'cpd' as const, username: 'u', password: 'p' },
      { type: 'cpd', username: 'u', password: '***' },
    ],
    [
      { type: 'bearer' as const, token_env: 'TOK' },
      { type: 'bearer', token_env: 'TOK' },
    ],
    [
      { type: 'api-key' as const, key: 'k' },
      { type: 'api-key', key: '***' },
    ],
  ])('literal secrets become *** and variable names stay (%j)', (auth, shown) => {
    expect(redactProfile({ provider: 'watsonx', url: 'http://h', auth }).auth).toEqual(shown);
  });
});
