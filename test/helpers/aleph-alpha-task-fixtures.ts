import { crc32 } from 'node:zlib';
import { expect } from 'vitest';
import type { RecordedRequest } from '../../src/emulator/core/index.js';
import { ALEPH_ALPHA_TASK_REQUEST_SCHEMAS } from '../contract/aleph-alpha-task-schemas.js';

/** A valid 1×1 PNG (70 bytes). */
export const TINY_PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
export const TINY_PNG = Buffer.from(TINY_PNG_BASE64, 'base64');
/** The start of a JPEG file (SOI and a JFIF APP0 marker): what the CLI looks at to know the format. */
export const JPEG_START = Buffer.from([
  0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0xff, 0xd9,
]);

function xmlEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A zip archive of stored (uncompressed) entries: local headers, data, central directory, end record. */
export function zip(entries: Record<string, string | Buffer>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of Object.entries(entries)) {
    const data = Buffer.isBuffer(content) ? content : Buffer.from(content, 'utf8');
    const fileName = Buffer.from(name, 'utf8');
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(fileName.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(fileName.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, fileName, data);
    centrals.push(central, fileName);
    offset += local.length + fileName.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(entries).length, 8);
  end.writeUInt16LE(Object.keys(entries).length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** A minimal Word document: one `<w:p>` per paragraph, the runs of each split at "|" to show they are joined. */
export function makeDocx(paragraphs: string[]): Buffer {
  const body = paragraphs
    .map(
      (p) =>
        `<w:p>${p
          .split('|')
          .map((run) => `<w:r><w:t xml:space="preserve">${xmlEscape(run)}</w:t></w:r>`)
          .join('')}</w:p>`,
    )
    .join('');
  return zip({
    '[Content_Types].xml':
      '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>',
    'word/document.xml': `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`,
  });
}

const TASK_PATHS = new Set(Object.keys(ALEPH_ALPHA_TASK_REQUEST_SCHEMAS));

/** Every task request a test made must be a valid 1.16 request: POST, JSON both ways, `nice` only as "true". */
export function expectValidTaskWire(requests: RecordedRequest[]): void {
  for (const r of requests) {
    const where = `${r.method} ${r.path}`;
    if (!TASK_PATHS.has(r.path)) continue;
    expect(r.method, where).toBe('POST');
    expect(r.headers['content-type'], where).toMatch(/^application\/json/);
    expect(r.headers.accept, where).toBe('application/json');
    expect(
      Object.keys(r.query).filter((k) => k !== 'nice'),
      `${where}: query`,
    ).toEqual([]);
    if (r.query.nice !== undefined) expect(r.query.nice, `${where}: nice is sent only when true`).toBe('true');
    const schema = ALEPH_ALPHA_TASK_REQUEST_SCHEMAS[r.path as keyof typeof ALEPH_ALPHA_TASK_REQUEST_SCHEMAS];
    const parsed = schema.safeParse(r.json);
    expect(parsed.success, `${where}: ${parsed.success ? '' : JSON.stringify(parsed.error.issues)}`).toBe(true);
  }
}
