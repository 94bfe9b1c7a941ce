#!/usr/bin/env node
// Baseline: the official `openai` SDK (the client a user would otherwise pick) streaming the same completions and
// writing each text delta to stdout as it arrives, the way its README shows. Usage: sdk-client.mjs BASE_URL
import OpenAI from 'openai';

const client = new OpenAI({ baseURL: `${process.argv[2]}/v1`, apiKey: 'bench', maxRetries: 0 });
const stream = await client.completions.create({ model: 'demo', prompt: 'hi', stream: true });
for await (const chunk of stream) process.stdout.write(chunk.choices[0]?.text ?? '');
process.stdout.write('\n');
