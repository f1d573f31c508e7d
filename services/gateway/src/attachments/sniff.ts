/**
 * The content type of a file's first bytes (Gitea's modules/typesniffer, over Go's http.DetectContentType, the
 * WHATWG sniffing algorithm): the signatures uploads are checked against (`image/*` in `[attachment]
 * ALLOWED_TYPES`) and downloads are labelled with. SVG is told apart from other markup, as Gitea does.
 */

/** How many bytes decide (Go's sniffLen). */
export const SNIFF_LENGTH = 1024;

const TEXT_PLAIN = 'text/plain; charset=utf-8';
const OCTET_STREAM = 'application/octet-stream';

/** Exact prefixes (Go's exactSig / maskedSig without masks). */
const PREFIXES: readonly (readonly [string, string])[] = [
  ['%PDF-', 'application/pdf'],
  ['%!PS-Adobe-', 'application/postscript'],
  ['GIF87a', 'image/gif'],
  ['GIF89a', 'image/gif'],
  ['\x89PNG\r\n\x1a\n', 'image/png'],
  ['\xff\xd8\xff', 'image/jpeg'],
  ['BM', 'image/bmp'],
  ['\x00\x00\x01\x00', 'image/x-icon'],
  ['\x00\x00\x02\x00', 'image/x-icon'],
  ['OggS\x00', 'application/ogg'],
  ['\x1a\x45\xdf\xa3', 'video/webm'],
  ['ID3', 'audio/mpeg'],
  ['fLaC', 'audio/flac'],
  ['PK\x03\x04', 'application/zip'],
  ['\x1f\x8b\x08', 'application/x-gzip'],
  ['Rar!\x1a\x07\x00', 'application/x-rar-compressed'],
  ['Rar!\x1a\x07\x01\x00', 'application/x-rar-compressed'],
  ['\x00asm', 'application/wasm'],
  ['\xef\xbb\xbf', TEXT_PLAIN],
  ['\xfe\xff', 'text/plain; charset=utf-16be'],
  ['\xff\xfe', 'text/plain; charset=utf-16le'],
];

/** Markup that makes a browser render a page (Go's htmlSig), compared without case after leading white space. */
const HTML_TAGS = ['<!DOCTYPE HTML', '<HTML', '<HEAD', '<SCRIPT', '<IFRAME', '<H1', '<DIV', '<FONT', '<TABLE', '<A', '<STYLE', '<TITLE', '<B', '<BODY', '<BR', '<P', '<!--'];

const SVG = /<svg[\s>/]/i;

function startsWith(data: Uint8Array, prefix: string): boolean {
  if (data.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (data[i] !== prefix.charCodeAt(i)) return false;
  return true;
}

/** Go's isTT: a tag-terminating byte. */
function terminatesTag(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x3e;
}

function isBinaryByte(byte: number): boolean {
  return byte <= 0x08 || byte === 0x0b || (byte >= 0x0e && byte <= 0x1a) || (byte >= 0x1c && byte <= 0x1f);
}

function markupType(data: Uint8Array): string | undefined {
  let start = 0;
  while (start < data.length && [0x09, 0x0a, 0x0c, 0x0d, 0x20].includes(data[start])) start++;
  const rest = data.subarray(start);
  const upper = Buffer.from(rest.subarray(0, 16)).toString('latin1').toUpperCase();
  for (const tag of HTML_TAGS) {
    if (upper.startsWith(tag) && terminatesTag(rest[tag.length])) return 'text/html; charset=utf-8';
  }
  if (startsWith(rest, '<?xml')) return 'text/xml; charset=utf-8';
  return undefined;
}

/** The sniffed type with parameters, e.g. `text/plain; charset=utf-8` (an empty file is text, as in Go). */
export function sniffContentType(head: Uint8Array): string {
  const data = head.subarray(0, SNIFF_LENGTH);
  const markup = markupType(data);
  const text = Buffer.from(data).toString('latin1');
  // Gitea's typesniffer: SVG is recognised in any text, and wins over HTML and XML.
  if ((markup !== undefined || !data.some(isBinaryByte)) && SVG.test(text)) return 'image/svg+xml';
  if (markup !== undefined) return markup;
  for (const [prefix, type] of PREFIXES) if (startsWith(data, prefix)) return type;
  if (startsWith(data, 'RIFF') && startsWith(data.subarray(8), 'WEBPVP')) return 'image/webp';
  if (startsWith(data.subarray(4), 'ftyp')) return 'video/mp4';
  return data.some(isBinaryByte) ? OCTET_STREAM : TEXT_PLAIN;
}

/** The media type without its parameters, lower case. */
export function mediaTypeOf(contentType: string): string {
  return contentType.split(';')[0].trim().toLowerCase();
}
