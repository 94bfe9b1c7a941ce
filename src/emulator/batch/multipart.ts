/**
 * The `multipart/form-data` body of a file upload (RFC 7578): its fields and its one file. Enough for what the
 * SDKs send (the `openai` SDK's FormData, IBM's `form-data` stream): parts with a `Content-Disposition` name, a
 * file part with a filename. The body arrives as text (the server reads bodies as UTF-8; batch files are JSONL).
 */

export interface UploadForm {
  fields: Record<string, string>;
  file?: { field: string; filename: string; content: string };
}

/** The form, or a message saying what is wrong with it. */
export function parseMultipart(contentType: string | undefined, body: string): UploadForm | { error: string } {
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType ?? '');
  const mark = boundary?.[1] ?? boundary?.[2];
  if (!mark) return { error: 'The multipart body has no boundary in its Content-Type' };
  const delimiter = `--${mark}`;
  const form: UploadForm = { fields: {} };
  let at = body.indexOf(delimiter);
  if (at < 0) return { error: 'The multipart body holds no part' };
  for (;;) {
    at += delimiter.length;
    if (body.startsWith('--', at)) break;
    const next = body.indexOf(`\r\n${delimiter}`, at);
    if (next < 0) return { error: 'The multipart body ends before its closing boundary' };
    const part = body.slice(body.startsWith('\r\n', at) ? at + 2 : at, next);
    const split = part.indexOf('\r\n\r\n');
    if (split < 0) return { error: 'A part of the multipart body has no headers' };
    const headers = part.slice(0, split);
    const content = part.slice(split + 4);
    const disposition = /^content-disposition:(.*)$/im.exec(headers)?.[1] ?? '';
    const name = /\bname="([^"]*)"/i.exec(disposition)?.[1];
    const filename = /\bfilename="([^"]*)"/i.exec(disposition)?.[1];
    if (name !== undefined) {
      if (filename !== undefined) form.file ??= { field: name, filename, content };
      else form.fields[name] = content;
    }
    at = next + 2;
  }
  return form;
}
