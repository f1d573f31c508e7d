/**
 * Reading a JSON request body, only on routes that take one and only after authentication and the route's
 * guards passed (so a bad token is a 401 whatever the body). Too large → 413, not JSON → 400, empty →
 * undefined (Gitea reads an empty body as `{}`).
 */
import type { IncomingMessage } from 'node:http';
import { HttpError } from '@cairn/http';

export const BODY_TOO_LARGE_MESSAGE = 'request body too large';

export function bodyTooLarge(limit: number): HttpError {
  return new HttpError(413, `${BODY_TOO_LARGE_MESSAGE} (limit ${limit} bytes)`);
}

/** The declared length is over `limit` (a chunked body is measured while it is read). */
export function declaresTooLargeBody(req: IncomingMessage, limit: number): boolean {
  const length = Number(req.headers['content-length']);
  return Number.isFinite(length) && length > limit;
}

function readRaw(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.pause();
        reject(bodyTooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

export async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  if (declaresTooLargeBody(req, limit)) throw bodyTooLarge(limit);
  const text = (await readRaw(req, limit)).toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw HttpError.badRequest(`invalid JSON body: ${(error as Error).message}`);
  }
}
