/**
 * Streaming bodies through the gateway without holding them: a request body read chunk by chunk (gunzipped
 * when the client compressed it), and a response written from an async iterable at the client's pace (a full
 * socket buffer stops reading from the source until it drains). A client that goes away aborts the signal the
 * source was started with, so the service call behind it is cancelled rather than left running.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { Logger } from '@cairn/log';
import { CairnError } from '@cairn/rpc';

/**
 * The request body's chunks; a `Content-Encoding: gzip` body arrives decompressed, and one that does not
 * decompress fails the iteration with INVALID_ARGUMENT (reason `invalid_request_body`).
 */
export async function* requestChunks(req: IncomingMessage): AsyncIterable<Buffer> {
  let source: Readable = req;
  if (req.headers['content-encoding'] === 'gzip') {
    // pipeline destroys both streams on a failure of either: a broken gzip stream ends the iteration with its error.
    source = pipeline(req, createGunzip(), () => {});
  }
  try {
    for await (const chunk of source) yield chunk as Buffer;
  } catch (error) {
    // zlib's errors carry codes such as Z_DATA_ERROR; anything else (the client going away) stays what it is.
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && code.startsWith('Z_')) {
      throw CairnError.invalid(`request body is not valid gzip: ${(error as Error).message}`, { reason: 'invalid_request_body', cause: error });
    }
    throw error;
  }
}

/** An AbortSignal aborted when the client closes the connection before the response finished. */
export function abortOnClientClose(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}

const clientGone = () => new Error('the client closed the connection');

/** Resolves when `res` can take more data, rejects when the connection closed first. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve, reject) => {
    if (res.destroyed) {
      reject(clientGone());
      return;
    }
    const onDrain = () => {
      res.off('close', onClose);
      resolve();
    };
    const onClose = () => {
      res.off('drain', onDrain);
      reject(clientGone());
    };
    res.once('drain', onDrain);
    res.once('close', onClose);
  });
}

/**
 * Writes every chunk of `chunks` to `res` and ends it. `begin` runs once, just before the first byte (or the end
 * of an empty body), to set the status and headers: a source that fails before yielding anything leaves the
 * response untouched (`res.headersSent` false), so the caller can still answer with an error.
 */
export async function writeChunks(res: ServerResponse, chunks: AsyncIterable<Uint8Array>, begin: () => void): Promise<void> {
  let begun = false;
  for await (const chunk of chunks) {
    if (!begun) {
      begin();
      begun = true;
    }
    if (chunk.length === 0) continue;
    // Leaving the loop ends the source (a service call is cancelled) once nobody reads the answer anymore.
    if (res.destroyed) throw clientGone();
    if (!res.write(chunk)) await drained(res);
  }
  if (!begun) begin();
  res.end();
}

/**
 * Answers with `status` and the streamed body. A failure before the first byte is thrown (the caller answers it
 * as an error); after it, the answer cannot be repaired: the connection is cut, so the client sees a broken
 * transfer rather than a short one.
 */
export async function sendStream(res: ServerResponse, status: number, chunks: AsyncIterable<Uint8Array>, logger: Logger): Promise<void> {
  try {
    await writeChunks(res, chunks, () => {
      res.statusCode = status;
    });
  } catch (error) {
    if (!res.headersSent) throw error;
    if (!res.destroyed) logger.warn({ err: error }, 'streamed answer failed after it began');
    res.destroy();
  }
}

/** A started stream: its first item, the items after it, and a way to drop it unread. */
export interface StartedStream<T> {
  first: T | undefined;
  /** The remaining items; leaving a loop over them early ends the source. */
  rest: AsyncIterable<T>;
  /** Ends the source without reading on (a service call is cancelled). */
  cancel(): Promise<void>;
}

/**
 * Starts `source` and waits for its first item, so a failure to start (an unknown file, a dead service) is thrown
 * here, before anything is answered.
 */
export async function startStream<T>(source: AsyncIterable<T>): Promise<StartedStream<T>> {
  const iterator = source[Symbol.asyncIterator]();
  const head = await iterator.next();
  return {
    first: head.done ? undefined : head.value,
    rest: { [Symbol.asyncIterator]: () => iterator },
    cancel: async () => {
      await iterator.return?.();
    },
  };
}
