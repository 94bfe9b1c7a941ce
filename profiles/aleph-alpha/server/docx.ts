/**
 * The text of a Word document (.docx), for the local server's `{docx: <base64>}` documents. A .docx is a zip
 * archive whose `word/document.xml` holds the body; this reads just that entry (stored or deflated, the two methods
 * Word writes) and keeps the text runs, tabs, line breaks and paragraphs. No dependency: node:zlib inflates.
 */
import { inflateRawSync } from 'node:zlib';

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

/** One entry's bytes, or undefined when the archive is not a zip or lacks the entry. Out-of-range reads throw RangeError. */
function zipEntry(zip: Buffer, name: string): Buffer | undefined {
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
      if (method === STORED) return data;
      if (method === DEFLATED) return inflateRawSync(data);
      return undefined;
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

/** The document's text, or undefined when the bytes are not a Word document. */
export function docxText(bytes: Buffer): string | undefined {
  try {
    const xml = zipEntry(bytes, 'word/document.xml');
    return xml === undefined ? undefined : bodyText(xml.toString('utf8'));
  } catch {
    // A truncated or corrupt archive (reads past the end, bad deflate data) is simply not a Word document.
    return undefined;
  }
}
