/**
 * Writes a tiny llama-architecture GGUF model whose greedy output is known exactly: the "successor" model. Its
 * tokenizer is SentencePiece-style ("llama"), with byte fallback, so any UTF-8 text round-trips; its 52 letter
 * tokens (`a`…`z` and `▁a`…`▁z`) have orthonormal embeddings, and the output row of each letter's successor is that
 * letter's embedding scaled by a large margin, so after any letter the next letter wins by about 16 nats and `z` is
 * followed by `</s>`: the prompt "a" continues "bcdefghijklmnopqrstuvwxyz" and then ends. Attention and FFN weights
 * are small random numbers: they run, but cannot flip the chain. About 0.5 MB, written in milliseconds; the same
 * options always give the same bytes.
 */
import { writeFileSync } from 'node:fs';

const N_EMBD = 64;
const N_HEAD = 4;
const N_LAYER = 2;
const N_FF = 128;
const ROPE_DIMS = 16;
const ALIGNMENT = 32;
/** Logit of the successor, in nats, before the small random parts. */
const MARGIN = 16;

const SPACE = '\u2581';
const WORDS = ['hello', 'world', 'the', 'test', 'token', 'model'];
const PUNCTUATION = ['.', ',', '!', '?', '-', "'"];

export interface SuccessorModelOptions {
  /** llama.context_length; default 256. */
  contextLength?: number;
  /** Weight seed; default 1. */
  seed?: number;
  name?: string;
  /** `z` is followed by `a` instead of `</s>`: greedy text never ends (for benchmarks). */
  cycle?: boolean;
}

export interface Vocabulary {
  tokens: string[];
  scores: number[];
  types: number[];
}

/** The vocabulary: `<unk> <s> </s>`, 256 byte tokens, `▁`, letters, digits, punctuation, `▁a`…`▁z`, word prefixes. */
export function successorVocabulary(): Vocabulary {
  const tokens: string[] = ['<unk>', '<s>', '</s>'];
  const types: number[] = [2, 3, 3];
  for (let b = 0; b < 256; b++) {
    tokens.push(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`);
    types.push(6);
  }
  const lower = [...'abcdefghijklmnopqrstuvwxyz'];
  const normal = [
    SPACE,
    ...lower,
    ...lower.map((c) => c.toUpperCase()),
    ...'0123456789',
    ...PUNCTUATION,
    ...lower.map((c) => SPACE + c),
  ];
  for (const word of WORDS) for (let n = 3; n <= word.length + 1; n++) normal.push((SPACE + word).slice(0, n));
  for (const t of normal) {
    if (tokens.includes(t)) continue;
    tokens.push(t);
    types.push(1);
  }
  const scores = tokens.map((t, i) => (types[i] === 1 ? 10 * [...t].length : 0));
  return { tokens, scores, types };
}

/** mulberry32: a small seeded generator, so the weights are the same on every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function gaussian(next: () => number): () => number {
  return () => {
    const u = Math.max(next(), 1e-12);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next());
  };
}

function randomMatrix(normal: () => number, n: number, std: number): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = normal() * std;
  return out;
}

/** The model's tensors, in ggml order (ne[0] is the contiguous dimension). */
function tensors(
  vocab: Vocabulary,
  seed: number,
  cycle: boolean,
): Array<{ name: string; dims: number[]; data: Float32Array }> {
  const normal = gaussian(rng(seed));
  const V = vocab.tokens.length;
  const id = (t: string) => vocab.tokens.indexOf(t);
  const embd = randomMatrix(normal, N_EMBD * V, 0.02);
  const output = randomMatrix(normal, N_EMBD * V, 0.02);

  // The 52 letter tokens get orthonormal embeddings (Gram-Schmidt on random vectors).
  const lower = [...'abcdefghijklmnopqrstuvwxyz'];
  const letters = [...lower, ...lower.map((c) => SPACE + c)];
  const basis: Float64Array[] = [];
  for (const letter of letters) {
    const v = Float64Array.from({ length: N_EMBD }, () => normal());
    for (const b of basis) {
      let dot = 0;
      for (let k = 0; k < N_EMBD; k++) dot += v[k]! * b[k]!;
      for (let k = 0; k < N_EMBD; k++) v[k]! -= dot * b[k]!;
    }
    const norm = Math.hypot(...v);
    for (let k = 0; k < N_EMBD; k++) v[k]! /= norm;
    basis.push(v);
    embd.set(Float32Array.from(v), id(letter) * N_EMBD);
  }
  // The output row of each successor sums the letters it follows: RMS norm scales a unit vector to length √n_embd.
  const successorRows = new Map<number, number[]>();
  letters.forEach((letter, i) => {
    const c = letter.at(-1)!;
    const next = c === 'z' ? (cycle ? id('a') : 2) : id(String.fromCharCode(c.charCodeAt(0) + 1));
    const row = successorRows.get(next) ?? new Array<number>(N_EMBD).fill(0);
    for (let k = 0; k < N_EMBD; k++) row[k]! += (MARGIN / Math.sqrt(N_EMBD)) * basis[i]![k]!;
    successorRows.set(next, row);
  });
  for (const [token, row] of successorRows) output.set(Float32Array.from(row), token * N_EMBD);

  const ones = (n: number) => new Float32Array(n).fill(1);
  const out = [
    { name: 'token_embd.weight', dims: [N_EMBD, V], data: embd },
    { name: 'output_norm.weight', dims: [N_EMBD], data: ones(N_EMBD) },
    { name: 'output.weight', dims: [N_EMBD, V], data: output },
  ];
  for (let l = 0; l < N_LAYER; l++) {
    const p = `blk.${l}.`;
    out.push(
      { name: `${p}attn_norm.weight`, dims: [N_EMBD], data: ones(N_EMBD) },
      { name: `${p}attn_q.weight`, dims: [N_EMBD, N_EMBD], data: randomMatrix(normal, N_EMBD * N_EMBD, 0.02) },
      { name: `${p}attn_k.weight`, dims: [N_EMBD, N_EMBD], data: randomMatrix(normal, N_EMBD * N_EMBD, 0.02) },
      { name: `${p}attn_v.weight`, dims: [N_EMBD, N_EMBD], data: randomMatrix(normal, N_EMBD * N_EMBD, 0.02) },
      { name: `${p}attn_output.weight`, dims: [N_EMBD, N_EMBD], data: randomMatrix(normal, N_EMBD * N_EMBD, 0.02) },
      { name: `${p}ffn_norm.weight`, dims: [N_EMBD], data: ones(N_EMBD) },
      { name: `${p}ffn_gate.weight`, dims: [N_EMBD, N_FF], data: randomMatrix(normal, N_EMBD * N_FF, 0.02) },
      { name: `${p}ffn_up.weight`, dims: [N_EMBD, N_FF], data: randomMatrix(normal, N_EMBD * N_FF, 0.02) },
      { name: `${p}ffn_down.weight`, dims: [N_FF, N_EMBD], data: randomMatrix(normal, N_FF * N_EMBD, 0.02) },
    );
  }
  return out;
}

/** GGUF value types. */
const T = { u32: 4, i32: 5, f32: 6, bool: 7, string: 8, array: 9 } as const;

class Writer {
  private readonly parts: Buffer[] = [];
  length = 0;
  private push(b: Buffer): void {
    this.parts.push(b);
    this.length += b.length;
  }
  u32(v: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v);
    this.push(b);
  }
  i32(v: number): void {
    const b = Buffer.alloc(4);
    b.writeInt32LE(v);
    this.push(b);
  }
  u64(v: number): void {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(v));
    this.push(b);
  }
  f32(v: number): void {
    const b = Buffer.alloc(4);
    b.writeFloatLE(v);
    this.push(b);
  }
  string(s: string): void {
    const b = Buffer.from(s, 'utf8');
    this.u64(b.length);
    this.push(b);
  }
  bytes(b: Buffer): void {
    this.push(b);
  }
  pad(): void {
    const n = (ALIGNMENT - (this.length % ALIGNMENT)) % ALIGNMENT;
    if (n > 0) this.push(Buffer.alloc(n));
  }
  buffer(): Buffer {
    return Buffer.concat(this.parts);
  }
}

type Kv =
  | [string, 'u32' | 'f32' | 'bool' | 'string', number | boolean | string]
  | [string, 'array', 'string' | 'f32' | 'i32', ReadonlyArray<string | number>];

/** The model file's bytes. */
export function successorModelBytes(options: SuccessorModelOptions = {}): Buffer {
  const vocab = successorVocabulary();
  const kvs: Kv[] = [
    ['general.architecture', 'string', 'llama'],
    ['general.name', 'string', options.name ?? 'textgen-successor'],
    ['general.file_type', 'u32', 0],
    ['general.alignment', 'u32', ALIGNMENT],
    ['llama.vocab_size', 'u32', vocab.tokens.length],
    ['llama.context_length', 'u32', options.contextLength ?? 256],
    ['llama.embedding_length', 'u32', N_EMBD],
    ['llama.block_count', 'u32', N_LAYER],
    ['llama.feed_forward_length', 'u32', N_FF],
    ['llama.attention.head_count', 'u32', N_HEAD],
    ['llama.attention.head_count_kv', 'u32', N_HEAD],
    ['llama.rope.dimension_count', 'u32', ROPE_DIMS],
    ['llama.rope.freq_base', 'f32', 10000],
    ['llama.attention.layer_norm_rms_epsilon', 'f32', 1e-5],
    ['tokenizer.ggml.model', 'string', 'llama'],
    ['tokenizer.ggml.tokens', 'array', 'string', vocab.tokens],
    ['tokenizer.ggml.scores', 'array', 'f32', vocab.scores],
    ['tokenizer.ggml.token_type', 'array', 'i32', vocab.types],
    ['tokenizer.ggml.bos_token_id', 'u32', 1],
    ['tokenizer.ggml.eos_token_id', 'u32', 2],
    ['tokenizer.ggml.unknown_token_id', 'u32', 0],
    ['tokenizer.ggml.add_bos_token', 'bool', true],
    ['tokenizer.ggml.add_eos_token', 'bool', false],
  ];
  const ts = tensors(vocab, options.seed ?? 1, options.cycle ?? false);

  const w = new Writer();
  w.bytes(Buffer.from('GGUF', 'ascii'));
  w.u32(3);
  w.u64(ts.length);
  w.u64(kvs.length);
  for (const kv of kvs) {
    w.string(kv[0]);
    if (kv[1] === 'array') {
      w.u32(T.array);
      w.u32(T[kv[2]]);
      w.u64(kv[3].length);
      for (const v of kv[3]) {
        if (kv[2] === 'string') w.string(v as string);
        else if (kv[2] === 'f32') w.f32(v as number);
        else w.i32(v as number);
      }
      continue;
    }
    w.u32(T[kv[1]]);
    if (kv[1] === 'u32') w.u32(kv[2] as number);
    else if (kv[1] === 'f32') w.f32(kv[2] as number);
    else if (kv[1] === 'bool') w.bytes(Buffer.from([kv[2] ? 1 : 0]));
    else w.string(kv[2] as string);
  }
  let offset = 0;
  for (const t of ts) {
    w.string(t.name);
    w.u32(t.dims.length);
    for (const d of t.dims) w.u64(d);
    w.u32(0);
    w.u64(offset);
    offset += Math.ceil(t.data.byteLength / ALIGNMENT) * ALIGNMENT;
  }
  w.pad();
  for (const t of ts) {
    w.bytes(Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength));
    w.pad();
  }
  return w.buffer();
}

/** Writes the model to `path` and returns the path. */
export function writeSuccessorModel(path: string, options: SuccessorModelOptions = {}): string {
  writeFileSync(path, successorModelBytes(options));
  return path;
}
