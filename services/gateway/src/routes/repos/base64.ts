/**
 * Strict base64, as Go's base64.StdEncoding reads the contents API's `content`: line breaks are skipped, anything
 * else outside the alphabet or misplaced padding is refused with Go's message (422), before anything is written.
 */
import { HttpError } from '@cairn/http';

function illegalAt(index: number): HttpError {
  return HttpError.unprocessable(`illegal base64 data at input byte ${index}`);
}

export function decodeBase64(text: string): Buffer {
  const data = text.replace(/[\r\n]/g, '');
  const bad = /[^A-Za-z0-9+/=]/.exec(data);
  if (bad !== null) throw illegalAt(bad.index);
  const padding = data.indexOf('=');
  if (padding >= 0 && (padding < data.length - 2 || !/^={1,2}$/.test(data.slice(padding)))) throw illegalAt(padding);
  if (data.length % 4 !== 0) throw illegalAt(data.length - (data.length % 4));
  return Buffer.from(data, 'base64');
}
