/**
 * The Vercel AI SDK (`ai` 6 with `@ai-sdk/openai` 3 and `@ai-sdk/azure` 3) as the oracle for serve's chat
 * completions routes: `createOpenAI({baseURL}).chat(model)` (the chat-completions model, not the default Responses
 * one) and `createAzure({baseURL, useDeploymentBasedUrls})` (Azure's deployment route). `generateText` with a tool
 * runs the tool and continues, so the conversation carrying the call and its result must be accepted; `generateObject`
 * with a zod schema must parse; `streamText` must deliver the call assembled from the stream.
 */
import { createAzure } from '@ai-sdk/azure';
import { createOpenAI } from '@ai-sdk/openai';
import { generateObject, generateText, stepCountIs, streamText, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import * as z from 'zod';
import { type RunningServer, startServer } from '../../src/emulator/core/index.js';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ requireAuth: true });
});
afterAll(async () => {
  await server.close();
});

const KEY = 'local-apikey';
const models = () => [
  { name: 'openai .chat()', model: createOpenAI({ apiKey: KEY, baseURL: `${server.url}/v1` }).chat('gpt-4o') },
  {
    name: 'azure deployment route',
    model: createAzure({
      apiKey: KEY,
      baseURL: `${server.url}/openai`,
      apiVersion: '2024-10-21',
      useDeploymentBasedUrls: true,
    }).chat('gpt-4o'),
  },
];

const weatherInput = z.object({ city: z.string().min(1), days: z.number().int().min(1).max(7) });

describe.each([0, 1])('the AI SDK against serve (%i)', (i) => {
  test('generateText with a tool: the SDK runs it, sends the result back, and gets text', async () => {
    const { model } = models()[i]!;
    const calls: unknown[] = [];
    const result = await generateText({
      model,
      prompt: 'What does weather say for Paris?',
      tools: {
        weather: tool({
          description: 'The weather in a city',
          inputSchema: weatherInput,
          execute: async (input) => {
            calls.push(input);
            return { forecast: 'sunny' };
          },
        }),
      },
      stopWhen: stepCountIs(3),
      temperature: 0,
      maxRetries: 0,
    });
    expect(calls).toHaveLength(1);
    expect(weatherInput.safeParse(calls[0]).success).toBe(true);
    expect(result.steps).toHaveLength(2);
    expect(result.steps[0]!.finishReason).toBe('tool-calls');
    expect(result.steps[0]!.toolCalls[0]!.toolName).toBe('weather');
    expect(result.finishReason).not.toBe('tool-calls');
    expect(result.text).not.toBe('');
  });

  test('generateObject with a zod schema: an object of that shape', async () => {
    const { model } = models()[i]!;
    const schema = z.object({
      title: z.string().max(60),
      rating: z.number().int().min(1).max(5),
      tags: z
        .array(z.enum(['new', 'used', 'rare']))
        .min(1)
        .max(3),
      seller: z.object({ name: z.string(), verified: z.boolean() }),
    });
    const { object, finishReason } = await generateObject({
      model,
      schema,
      prompt: 'Describe an item.',
      maxRetries: 0,
    });
    expect(schema.safeParse(object).success).toBe(true);
    expect(finishReason).toBe('stop');
  });

  test('streamText with a tool: the call arrives assembled, with input that validates', async () => {
    const { model } = models()[i]!;
    const result = streamText({
      model,
      prompt: 'Call weather now.',
      tools: { weather: tool({ description: 'The weather in a city', inputSchema: weatherInput }) },
      toolChoice: 'required',
      maxRetries: 0,
    });
    const deltas: string[] = [];
    for await (const part of result.fullStream) if (part.type === 'tool-input-delta') deltas.push(part.delta);
    const calls = await result.toolCalls;
    expect(calls).toHaveLength(1);
    expect(calls[0]!.toolName).toBe('weather');
    expect(weatherInput.safeParse(calls[0]!.input).success).toBe(true);
    expect(JSON.parse(deltas.join(''))).toEqual(calls[0]!.input);
    expect(await result.finishReason).toBe('tool-calls');
  });
});
