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

/** How much of a refused body is read and dropped, and for how long, before the connection is cut. */
const LINGER_BYTES = 64 * 1024 * 1024;
const LINGER_MS = 10_000;

/**
 * After a 413 the client may still be sending: closing with its bytes unread would reset the connection, and many
 * clients then report the reset instead of the answer. So the rest of the body is read and dropped (a lingering
 * close), up to LINGER_BYTES or LINGER_MS, after which the connection is cut.
 */
function lingerAfterRefusal(res: ServerResponse): void {
  const req = res.req;
  if (req === undefined || req.complete) return;
  let dropped = 0;
  const cut = () => req.socket.destroy();
  const timer = setTimeout(cut, LINGER_MS);
  timer.unref();
  req.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > LINGER_BYTES) cut();
  });
  req.once('close', () => clearTimeout(timer));
  req.resume();
}

export function sendHttpError(res: ServerResponse, error: HttpError, rootUrl: string): void {
  if (error.status === 413) lingerAfterRefusal(res);
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
