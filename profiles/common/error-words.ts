/**
 * The server's own words from an error answer that is not in its protocol's error shape: a proxy's HTML page, a
 * plain-text 404 from a router, an OpenAI-compatible server's `{"error": "…"}` string or FastAPI's `{"detail": …}`.
 * One line, bounded, so a message stays readable; the status reason only when the body says nothing.
 */
import { STATUS_CODES } from 'node:http';
import { isRecord } from '../../src/contract/wire-fields.js';

/** Characters of the server's words kept in a message. */
export const SERVER_WORDS_CHARS = 200;

function bounded(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > SERVER_WORDS_CHARS ? `${t.slice(0, SERVER_WORDS_CHARS)}…` : t;
}

function nonEmpty(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

/** The message of a JSON error body in one of the shapes servers use, or undefined. */
export function jsonErrorMessage(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  const error = body.error;
  const fromError = nonEmpty(error) ?? (isRecord(error) ? nonEmpty(error.message) : undefined);
  if (fromError) return fromError;
  const direct =
    nonEmpty(body.message) ?? nonEmpty(body.detail) ?? nonEmpty(body.error_description) ?? nonEmpty(body.title);
  if (direct) return direct;
  const list = Array.isArray(body.errors) ? body.errors : Array.isArray(body.detail) ? body.detail : undefined;
  const messages = (list ?? [])
    .map((e) => nonEmpty(e) ?? (isRecord(e) ? (nonEmpty(e.message) ?? nonEmpty(e.msg)) : undefined))
    .filter((m): m is string => m !== undefined);
  return messages.length > 0 ? messages.join('; ') : undefined;
}

const HTML = /^\s*(<!doctype html|<html|<head|<body|<title|<h1|<center)/i;

function decodeEntities(text: string): string {
  return text.replace(
    /&(amp|lt|gt|quot|#39|nbsp);/g,
    (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", nbsp: ' ' })[e] ?? '',
  );
}

/** An HTML page's title, else its first heading, else its text. */
function htmlWords(html: string): string {
  const pick = (re: RegExp) =>
    re
      .exec(html)?.[1]
      ?.replace(/<[^>]*>/g, ' ')
      .trim();
  const words =
    pick(/<title[^>]*>([\s\S]*?)<\/title>/i) ||
    pick(/<h1[^>]*>([\s\S]*?)<\/h1>/i) ||
    html
      .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
      .replace(/<[^>]*>/g, ' ')
      .trim();
  return decodeEntities(words);
}

/**
 * What an error body says, for the message of an ApiError: the message of a JSON error in a common shape, the title
 * of an HTML page, else the first non-empty line of the text; bounded. An empty body gives the status's reason.
 */
export function serverWords(bodyText: string, status: number): string {
  let json: unknown;
  try {
    json = JSON.parse(bodyText);
  } catch {
    json = undefined;
  }
  const fromJson = jsonErrorMessage(json);
  if (fromJson) return bounded(fromJson);
  if (json !== undefined) return bounded(JSON.stringify(json));
  const text = HTML.test(bodyText)
    ? htmlWords(bodyText)
    : (bodyText.split(/\r?\n|\r/).find((line) => line.trim() !== '') ?? '');
  return bounded(text) || STATUS_CODES[status] || 'error';
}
