/**
 * The text of a Word document (.docx), for the embedded server's `{docx: <base64>}` documents. A .docx is a zip
 * archive whose `word/document.xml` holds the body; this reads just that entry (stored or deflated, the two methods
 * Word writes) and keeps the text runs, tabs, line breaks and paragraphs. No dependency: node:zlib inflates.
 *
 * A request is untrusted: 1.4 MB of base64 can hold a deflated entry of gigabytes (a zip bomb took the server to
 * 2.1 GB and held the event loop while it inflated). So inflating is asynchronous (zlib's thread pool, in chunks:
 * other requests go on meanwhile) and bounded: it stops as soon as the entry's text passes what the request may
 * still unpack (`UnpackBudget`) or a ratio to its compressed size no Word document reaches.
 */
import { promisify } from 'node:util';
import { inflateRaw } from 'node:zlib';

const inflate = promisify(inflateRaw);

/** The most document text one request may unpack, all its documents together: far beyond any real document. */
export const MAX_UNPACKED_BYTES = 16 * 1024 * 1024;
/** Word's XML deflates about 10:1; beyond this ratio an entry is a bomb (an entry's first MiB is always allowed). */
export const MAX_RATIO = 100;
const RATIO_FLOOR_BYTES = 1024 * 1024;

/** What a request may still unpack; each document takes its share. */
export interface UnpackBudget {
  remaining: number;
}

export type DocxText =
  | { ok: true; text: string }
  | { ok: false; reason: 'not-a-document' }
  | { ok: false; reason: 'too-large'; bound: 'total' | 'ratio' };

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_FILE_HEADER = 0x02014b50;
const LOCAL_FILE_HEADER = 0x04034b50;
const STORED = 0;
const DEFLATED = 8;
/** The end record is 22 bytes plus a comment of at most 65535. */
const MAX_END_RECORD = 22 + 0xffff;

function endOfCentralDirectory(zip: Buffer): number | undefined {
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - MAX_END_RECORD); i--) {
    if (zip.readUInt32LE(i) === END_OF_CENTRAL_DIRECTORY) return i;
  }
  return undefined;
}

interface ZipEntry {
  method: typeof STORED | typeof DEFLATED;
  data: Buffer;
}

/** One entry, still compressed; undefined when the archive is not a zip or lacks it. Out-of-range reads throw RangeError. */
function zipEntry(zip: Buffer, name: string): ZipEntry | undefined {
  const end = endOfCentralDirectory(zip);
  if (end === undefined) return undefined;
  const entries = zip.readUInt16LE(end + 10);
  let p = zip.readUInt32LE(end + 16);
  for (let n = 0; n < entries; n++) {
    if (zip.readUInt32LE(p) !== CENTRAL_FILE_HEADER) return undefined;
    const method = zip.readUInt16LE(p + 10);
    const compressedSize = zip.readUInt32LE(p + 20);
    const nameLength = zip.readUInt16LE(p + 28);
    const extraLength = zip.readUInt16LE(p + 30);
    const commentLength = zip.readUInt16LE(p + 32);
    const local = zip.readUInt32LE(p + 42);
    const entryName = zip.toString('utf8', p + 46, p + 46 + nameLength);
    if (entryName === name) {
      if (zip.readUInt32LE(local) !== LOCAL_FILE_HEADER) return undefined;
      const dataStart = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
      const data = zip.subarray(dataStart, dataStart + compressedSize);
      if (data.length !== compressedSize) return undefined;
      return method === STORED || method === DEFLATED ? { method, data } : undefined;
    }
    p += 46 + nameLength + extraLength + commentLength;
  }
  return undefined;
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|[a-z]+);/g, (whole, name: string) => {
    if (name.startsWith('#x')) return String.fromCodePoint(parseInt(name.slice(2), 16));
    if (name.startsWith('#')) return String.fromCodePoint(parseInt(name.slice(1), 10));
    return ENTITIES[name] ?? whole;
  });
}

/** Text runs (`<w:t>`), tabs and breaks in order; each paragraph (`</w:p>`) ends with a blank line. */
function bodyText(xml: string): string {
  let out = '';
  for (const m of xml.matchAll(/<w:t(?:\s[^>]*)?>([^<]*)<\/w:t>|<w:tab\/>|<w:br\/>|<\/w:p>/g)) {
    if (m[1] !== undefined) out += decodeEntities(m[1]);
    else if (m[0] === '<w:tab/>') out += '\t';
    else if (m[0] === '<w:br/>') out += '\n';
    else out += '\n\n';
  }
  return out.trim();
}

/** The document's text; the budget shrinks by what it unpacked. */
export async function docxText(bytes: Buffer, budget: UnpackBudget): Promise<DocxText> {
  let entry: ZipEntry | undefined;
  try {
    entry = zipEntry(bytes, 'word/document.xml');
  } catch {
    // A truncated archive (reads past the end) is simply not a Word document.
    return { ok: false, reason: 'not-a-document' };
  }
  if (entry === undefined) return { ok: false, reason: 'not-a-document' };
  const byRatio = Math.max(RATIO_FLOOR_BYTES, entry.data.length * MAX_RATIO);
  const limit = Math.min(budget.remaining, byRatio);
  const bound = limit === budget.remaining ? 'total' : 'ratio';
  let xml: Buffer;
  if (entry.method === STORED) {
    if (entry.data.length > budget.remaining) return { ok: false, reason: 'too-large', bound: 'total' };
    xml = entry.data;
  } else {
    try {
      xml = await inflate(entry.data, { maxOutputLength: Math.max(1, limit) });
    } catch (error) {
      // zlib stops inflating once the output passes maxOutputLength.
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
        return { ok: false, reason: 'too-large', bound };
      return { ok: false, reason: 'not-a-document' };
    }
  }
  budget.remaining -= xml.length;
  return { ok: true, text: bodyText(xml.toString('utf8')) };
}
