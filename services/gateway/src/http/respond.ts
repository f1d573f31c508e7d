/** Writing answers the way Gitea does: its JSON content type and encoding, and its error bodies. */
import type { Response } from 'express';
import { type HttpError, JSON_CONTENT_TYPE, goJson } from '@cairn/http';

export function sendJson(res: Response, status: number, body: unknown): void {
  const text = goJson(body);
  res.status(status);
  res.setHeader('Content-Type', JSON_CONTENT_TYPE);
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

export function sendHttpError(res: Response, error: HttpError, rootUrl: string): void {
  // The rest of a too-large body is never read: close the connection instead of draining it.
  if (error.status === 413) res.setHeader('Connection', 'close');
  sendJson(res, error.status, error.body(rootUrl));
}
