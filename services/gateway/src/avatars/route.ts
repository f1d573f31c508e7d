/**
 * `GET /avatars/{hash}` (Gitea's routers/web/web.go `/avatars/*` → avatarStorageHandler): the image behind every
 * `avatar_url` Cairn hands out, for users and organizations alike, outside the API and its sign-in rules (an
 * avatar hash tells nothing about its owner). No avatar is uploaded yet, so every well-formed hash answers its
 * generated identicon; uploaded avatars will be looked up by their hash in the object store first, and only a hash
 * with no stored image falls back to the generated one. `?size=` is ignored, as Gitea's storage handler does.
 */
import type { Handler } from '../http/exchange';
import { AVATAR_HASH, identiconPng } from './identicon';

/** An address always shows the same image: let browsers and proxies keep it for a day, then revalidate. */
const CACHE_CONTROL = 'public, max-age=86400';

export const avatarHandler: Handler = (req, res) => {
  const hash = req.params.hash ?? '';
  if (!AVATAR_HASH.test(hash)) {
    res.statusCode = 404;
    res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.end('404 page not found\n');
    return;
  }
  const etag = `"${hash}"`;
  res.setHeader('Cache-Control', CACHE_CONTROL);
  res.setHeader('ETag', etag);
  if (req.headers['if-none-match'] === etag) {
    res.statusCode = 304;
    res.end();
    return;
  }
  const png = identiconPng(hash);
  res.statusCode = 200;
  res.setHeader('Content-Type', 'image/png');
  res.setHeader('Content-Length', png.length);
  res.end(req.method === 'HEAD' ? undefined : png);
};
