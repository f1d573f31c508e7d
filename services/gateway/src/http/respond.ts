/** Writing answers the way Gitea does: its JSON content type and encoding, and its error bodies. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type HttpError, JSON_CONTENT_TYPE, goJson } from '@cairn/http';

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = goJson(body);
  res.statusCode = status;
  res.setHeader('Content-Type', JSON_CONTENT_TYPE);
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

export function sendHttpError(res: ServerResponse, error: HttpError, rootUrl: string): void {
  // The rest of a too-large body is never read: close the connection instead of draining it.
  if (error.status === 413) res.setHeader('Connection', 'close');
  if (error.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(error.retryAfterSeconds));
  sendJson(res, error.status, error.body(rootUrl));
}

const REDIRECT_TEXT: Readonly<Record<number, string>> = { 301: 'Moved Permanently', 302: 'Found', 303: 'See Other', 307: 'Temporary Redirect' };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A redirect as Go's http.Redirect writes it: a small HTML body for GET and HEAD, none otherwise. */
export function sendRedirect(req: IncomingMessage, res: ServerResponse, status: number, location: string): void {
  res.statusCode = status;
  res.setHeader('Location', location);
  if (req.method === 'GET' || req.method === 'HEAD') {
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.end(`<a href="${escapeHtml(location)}">${REDIRECT_TEXT[status] ?? 'Redirect'}</a>.\n\n`);
    return;
  }
  res.end();
}
