/**
 * What an issue's title and body may be. Gitea requires a title and stores it in a 255-character column (a longer
 * one fails in its database); Cairn answers INVALID_ARGUMENT instead. Gitea sets no limit of its own on a body
 * beyond the request size; Cairn caps it at 1 MiB so that one issue cannot make every list that shows it huge.
 */
import { CairnError } from '@cairn/rpc';

export const MAX_TITLE_LENGTH = 255;
export const MAX_BODY_BYTES = 1024 * 1024;

/** A title to store: not empty, at most 255 characters (code points). */
export function requireTitle(title: string): string {
  if (title === '') throw CairnError.invalid('[Title]: Required', { reason: 'title_required' });
  if ([...title].length > MAX_TITLE_LENGTH) throw CairnError.invalid('[Title]: MaxSize', { reason: 'title_too_long' });
  return title;
}

/** A body to store: at most MAX_BODY_BYTES bytes of UTF-8. */
export function requireBodySize(body: string): string {
  // A character takes at most 3 bytes in UTF-8 for a UTF-16 unit: only long bodies need measuring.
  if (body.length * 3 > MAX_BODY_BYTES && Buffer.byteLength(body, 'utf8') > MAX_BODY_BYTES) {
    throw CairnError.invalid(`body is too large: at most ${MAX_BODY_BYTES} bytes`, { reason: 'body_too_large' });
  }
  return body;
}
