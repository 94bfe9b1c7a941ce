/**
 * Checks a model file before llama.cpp sees it: llama.cpp aborts the whole process on some malformed files, so a
 * missing, unreadable, non-GGUF or truncated file is one clear UsageError (exit 2) instead. The header is checked
 * here; node-llama-cpp's own GGUF reader then parses the metadata and tensor table, and the tensor data must fit
 * inside the file.
 */
import { open, stat } from 'node:fs/promises';
import { UsageError } from '../../../contract/errors.js';
import type { NodeLlamaCpp } from './binding.js';

/** Magic, version, tensor count, metadata count. */
const HEADER_BYTES = 24;

export async function checkModelFile(path: string, llamaCpp: NodeLlamaCpp): Promise<void> {
  let size: number;
  try {
    const s = await stat(path);
    if (!s.isFile()) throw new UsageError(`--model ${path} is not a file`);
    size = s.size;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(
      code === 'ENOENT' ? `--model ${path}: no such file` : `--model ${path}: ${(error as Error).message}`,
    );
  }
  const header = Buffer.alloc(HEADER_BYTES);
  let read: number;
  try {
    const handle = await open(path, 'r');
    try {
      ({ bytesRead: read } = await handle.read(header, 0, HEADER_BYTES, 0));
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw new UsageError(`--model ${path}: cannot read it: ${(error as Error).message}`);
  }
  if (read < 4 || header.toString('latin1', 0, 4) !== 'GGUF')
    throw new UsageError(`--model ${path} is not a GGUF model file (it does not start with "GGUF")`);
  if (read < HEADER_BYTES) throw new UsageError(`--model ${path} is truncated: the GGUF header is incomplete`);
  const version = header.readUInt32LE(4);
  if (version < 2 || version > 3)
    throw new UsageError(`--model ${path} is GGUF version ${version}; llama.cpp reads versions 2 and 3`);

  let info: GgufInfo;
  try {
    info = (await llamaCpp.readGgufFileInfo(path, { readTensorInfo: true })) as GgufInfo;
  } catch (error) {
    const why = (error as Error).message.split('\n')[0];
    throw new UsageError(`--model ${path} is not a valid GGUF model file (truncated or damaged): ${why}`);
  }
  // The reader does not notice a file that ends early, so the sizes it reports are checked against the file's.
  if (info.infoEndOffset !== undefined && Number(info.infoEndOffset) > size)
    throw new UsageError(`--model ${path} is truncated: it ends inside its metadata or tensor table`);
  const end = tensorDataEnd(info);
  if (end !== undefined && end > size)
    throw new UsageError(`--model ${path} is truncated: its tensors need ${end} bytes, the file has ${size}`);
}

interface GgufInfo {
  infoEndOffset?: number | bigint;
  tensorInfo?: Array<{ fileOffset?: number | bigint; dimensions: Array<number | bigint>; ggmlType: number }>;
}

/** ggml type → [elements per block, bytes per block] (ggml/include/ggml.h); other types are checked by offset. */
const BLOCKS: Record<number, [number, number]> = {
  0: [1, 4], // F32
  1: [1, 2], // F16
  2: [32, 18], // Q4_0
  3: [32, 20], // Q4_1
  6: [32, 22], // Q5_0
  7: [32, 24], // Q5_1
  8: [32, 34], // Q8_0
  10: [256, 84], // Q2_K
  11: [256, 110], // Q3_K
  12: [256, 144], // Q4_K
  13: [256, 176], // Q5_K
  14: [256, 210], // Q6_K
  30: [1, 2], // BF16
};

/** The file offset where the last tensor's data ends (a lower bound for types not in BLOCKS). */
function tensorDataEnd(info: GgufInfo): number | undefined {
  if (!info.tensorInfo || info.tensorInfo.length === 0) return undefined;
  let end = 0;
  for (const t of info.tensorInfo) {
    if (t.fileOffset === undefined) return undefined;
    const elements = t.dimensions.reduce<number>((n, d) => n * Number(d), 1);
    const block = BLOCKS[t.ggmlType];
    const bytes = block ? Math.ceil(elements / block[0]) * block[1] : 1;
    end = Math.max(end, Number(t.fileOffset) + bytes);
  }
  return end;
}
