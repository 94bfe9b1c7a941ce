// Instructions per generated token of the llama engine's fast and exact paths against node-llama-cpp's own
// `sequence.evaluate`, counted by callgrind (valgrind), which does not move with other work on the machine as
// wall-clock and CPU time do. Each case runs in its own process for SHORT and LONG greedy tokens from "a" on the
// successor model (endless variant, one thread); (refs(LONG) − refs(SHORT)) / (LONG − SHORT) leaves start-up and
// model load out. Not part of `npm run bench` (minutes under valgrind): `node bench/llama-instructions.mjs`.
// Needs valgrind and node-llama-cpp (npm run engine:install). Child mode: `… --child MODE N`.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { root } from './lib.mjs';

const SHORT = 50;
const LONG = 450;
const MODES = ['direct', 'fast', 'exact'];

async function child(dir, mode, n) {
  const modelPath = join(dir, 'model.gguf');
  let text = '';
  if (mode === 'direct') {
    const entry = join(root, 'engines', 'llama', 'node_modules', 'node-llama-cpp', 'dist', 'index.js');
    const { getLlama, LlamaLogLevel } = await import(pathToFileURL(entry).href);
    const llama = await getLlama({ gpu: false, build: 'never', maxThreads: 1, logLevel: LlamaLogLevel.error });
    const model = await llama.loadModel({ modelPath });
    const sequence = (await model.createContext({ contextSize: 1024, threads: 1 })).getSequence();
    let count = 0;
    for await (const token of sequence.evaluate([model.tokens.bos, ...model.tokenize('a')], { temperature: 0 })) {
      text += model.detokenize([token]);
      if (++count === n) break;
    }
  } else {
    const { createLlamaEngine } = await import(pathToFileURL(join(dir, 'engine.mjs')).href);
    const engine = await createLlamaEngine({ modelPath, threads: 1, contextSize: 1024, gpu: 'off', parallel: 1 });
    const returnOptions = mode === 'exact' ? { token_logprobs: true } : undefined;
    const generation = await engine.startGeneration({
      input: 'a',
      parameters: { decoding_method: 'greedy', max_new_tokens: n, return_options: returnOptions },
    });
    for await (const step of generation) text += step.text;
  }
  if (text.length !== n) throw new Error(`${mode} made ${text.length} characters, not ${n}`);
  process.exit(0);
}

function refs(dir, mode, n) {
  return new Promise((resolve, reject) => {
    const p = spawn(
      'valgrind',
      [
        '--tool=callgrind',
        '--callgrind-out-file=/dev/null',
        process.execPath,
        import.meta.filename,
        '--child',
        dir,
        mode,
        String(n),
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let err = '';
    p.stderr.on('data', (c) => {
      err += c;
    });
    p.on('exit', (code) => {
      const m = /I\s+refs:\s+([\d,]+)/.exec(err);
      if (code === 0 && m) resolve(Number(m[1].replaceAll(',', '')));
      else reject(new Error(`${mode} ${n}: exit ${code}\n${err.slice(-2000)}`));
    });
  });
}

async function main() {
  const { build } = await import('esbuild');
  // Under the checkout, so the bundled engine finds node-llama-cpp in engines/llama/ as dist/ does.
  const cache = join(root, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, 'textgen-llama-instructions-'));
  try {
    const bundle = (entry, outfile) =>
      build({ entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', outfile, logLevel: 'warning' });
    await bundle(join(root, 'src', 'emulator', 'engine', 'llama', 'engine.ts'), join(dir, 'engine.mjs'));
    await bundle(join(root, 'test', 'helpers', 'gguf-successor.ts'), join(dir, 'writer.mjs'));
    const { writeSuccessorModel } = await import(pathToFileURL(join(dir, 'writer.mjs')).href);
    writeSuccessorModel(join(dir, 'model.gguf'), { contextLength: 1024, cycle: true });
    const perToken = {};
    for (const mode of MODES) {
      const [short, long] = await Promise.all([refs(dir, mode, SHORT), refs(dir, mode, LONG)]);
      perToken[mode] = (long - short) / (LONG - SHORT);
      console.error(`${mode}: ${(perToken[mode] / 1e6).toFixed(3)} M instructions per token`);
    }
    console.log('| path | instructions per token | against `evaluate` |\n|---|---:|---:|');
    const names = {
      direct: 'node-llama-cpp `sequence.evaluate` (baseline)',
      fast: 'engine, fast path',
      exact: 'engine, exact path (`token_logprobs`)',
    };
    for (const mode of MODES)
      console.log(
        `| ${names[mode]} | ${(perToken[mode] / 1e6).toFixed(2)} M | ${(perToken.direct / perToken[mode]).toFixed(2)}× |`,
      );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child') await child(process.argv[3], process.argv[4], Number(process.argv[5]));
else {
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
  } catch {
    console.log('SKIPPED: valgrind is not installed');
    process.exit(0);
  }
  if (!existsSync(join(root, 'engines', 'llama', 'node_modules', 'node-llama-cpp'))) {
    console.log('SKIPPED: node-llama-cpp is not installed (npm run engine:install)');
    process.exit(0);
  }
  await main();
}
