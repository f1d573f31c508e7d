/**
 * `GET /attachments/{uuid}` (Gitea's routers/web/repo/attachment.go ServeAttachment): the bytes behind every
 * `browser_download_url`, a web route outside the API that authenticates as the API does (token, basic, none).
 * repos decides whether the caller may read the attachment (OpenAttachment, which also counts the download, but
 * not for HEAD); anything hidden or missing is the web 404.
 *
 * Uploaded files must never act as pages of this origin: every answer is a download (`Content-Disposition:
 * attachment`), `nosniff`, sandboxed by its CSP, and labelled with its sniffed type only when that type cannot
 * run script (images other than SVG, PDF, audio, video, plain text); anything else is `application/octet-stream`.
 */
import { isHttpError, parseGoQuery } from '@cairn/http';
import { Code, isCairnError } from '@cairn/rpc';
import { attachmentKey, ObjectNotFoundError } from '@cairn/storage';
import { rawQueryOf } from '../api/pipeline';
import type { GatewayServices } from '../api/types';
import type { Authenticate } from '../auth/authenticate';
import { viewerOf } from '../auth/caller';
import { readCredentials } from '../auth/credentials';
import type { Handler } from '../http/exchange';
import { sendHttpError } from '../http/respond';
import { sendStream } from '../http/stream';
import { contentDisposition } from '../routes/repos/git-context';
import { peek } from './peek';
import { mediaTypeOf, sniffContentType } from './sniff';

/** Gitea's ServeAttachment CSP for user content: nothing loads, nothing runs. */
const CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

const INERT_FAMILIES = ['image/', 'audio/', 'video/'];

/** The type to label the download with: the sniffed one when no browser runs anything in it. */
export function safeContentType(sniffed: string): string {
  const media = mediaTypeOf(sniffed);
  if (media === 'image/svg+xml') return 'application/octet-stream';
  if (INERT_FAMILIES.some((family) => media.startsWith(family)) || media === 'application/pdf') return media;
  if (media === 'text/plain') return sniffed;
  return 'application/octet-stream';
}

export function attachmentDownloadHandler(services: GatewayServices, authenticate: Authenticate): Handler {
  const { config, clients, objects } = services;
  return async (req, res, next) => {
    let viewer;
    try {
      const credentials = readCredentials({
        authorization: req.headers.authorization,
        query: parseGoQuery(rawQueryOf(req)),
        disableQueryAuthToken: config.security.disableQueryAuthToken,
      });
      viewer = viewerOf((await authenticate(credentials, req)).user);
    } catch (error) {
      if (!isHttpError(error)) throw error;
      sendHttpError(res, error, config.server.rootUrl);
      return;
    }
    let name: string;
    let opened;
    try {
      const { attachment } = await clients.attachments.openAttachment({ viewer, uuid: req.params.uuid ?? '', noCount: req.method === 'HEAD' });
      if (attachment === undefined) throw new Error('OpenAttachment answered without the attachment');
      name = attachment.name;
      opened = await objects.open(attachmentKey(attachment.uuid));
    } catch (error) {
      // Hidden, unknown, or its bytes gone (a deletion committing right now): the web 404.
      if ((isCairnError(error) && error.code === Code.NOT_FOUND) || error instanceof ObjectNotFoundError) {
        next();
        return;
      }
      throw error;
    }
    const { head, whole } = await peek(opened.body);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    res.setHeader('Content-Disposition', contentDisposition('attachment', name));
    res.setHeader('Content-Type', safeContentType(sniffContentType(head)));
    res.setHeader('Content-Length', String(opened.size));
    res.setHeader('Cache-Control', 'private, max-age=0, must-revalidate');
    if (req.method === 'HEAD') {
      opened.body.destroy();
      res.statusCode = 200;
      res.end();
      return;
    }
    await sendStream(res, 200, whole, services.logger);
  };
}
