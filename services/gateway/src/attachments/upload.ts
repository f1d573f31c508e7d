/**
 * Receiving an upload straight into the object store (Gitea's routers/api/v1/repo/release_attachment.go
 * CreateReleaseAttachment and services/attachment UploadAttachment): the multipart file part `attachment`, or the
 * raw request body named by `?name=` (which also renames a multipart file). Nothing is buffered beyond the first
 * bytes the type check sniffs, nothing goes to a temporary file, and a refused upload leaves nothing stored:
 * a forbidden type (400) is refused before the store sees a byte, one over `[attachment] MAX_SIZE` (413) is
 * dropped by the store as it passes the limit.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { PassThrough, type Readable } from 'node:stream';
import busboy from 'busboy';
import { type GoValues, HttpError, goFormString } from '@cairn/http';
import { attachmentKey, type ObjectStore, ObjectTooLargeError } from '@cairn/storage';
import { forbiddenType, forbiddenTypeMessage } from './allowed-types';
import { peek } from './peek';

/** The multipart field Gitea reads the file from. */
export const ATTACHMENT_FIELD = 'attachment';

export const NO_NAME_MESSAGE = 'Could not determine name of attachment.';

export interface UploadOptions {
  /** `[attachment] ALLOWED_TYPES` (or `[repository.release]`'s for release assets). */
  allowedTypes: string;
  /** `[attachment] MAX_SIZE`, MiB. */
  maxSizeMiB: number;
  /**
   * Reserves the fresh uuid before a byte is stored (repos' ReserveAttachment), so that bytes a crash leaves
   * unrecorded are removed by repos' purger.
   */
  reserve(uuid: string): Promise<void>;
}

export interface StoredUpload {
  uuid: string;
  name: string;
  size: number;
}

/** Checks the type, then stores the body under a fresh uuid (Gitea's UUID), counting it against the size limit. */
async function store(objects: ObjectStore, name: string, body: AsyncIterable<Uint8Array>, options: UploadOptions): Promise<StoredUpload> {
  const { head, whole } = await peek(body);
  const forbidden = forbiddenType(head, name, options.allowedTypes);
  if (forbidden !== undefined) throw HttpError.badRequest(forbiddenTypeMessage(forbidden));
  const uuid = randomUUID();
  await options.reserve(uuid);
  const maxBytes = options.maxSizeMiB * 1024 * 1024;
  try {
    const { size } = await objects.put(attachmentKey(uuid), whole, { maxBytes });
    return { uuid, name, size };
  } catch (error) {
    if (error instanceof ObjectTooLargeError) throw new HttpError(413, `attachment is larger than the ${options.maxSizeMiB} MiB allowed`);
    throw error;
  }
}

function clientGone(): Error {
  return new Error('the client closed the connection during the upload');
}

/** The file name without any directories a client put in it (Go's multipart FileHeader.Filename is a base name). */
function baseName(filename: string): string {
  return filename.slice(Math.max(filename.lastIndexOf('/'), filename.lastIndexOf('\\')) + 1);
}

/**
 * Reads the multipart body, storing the first `attachment` file part as it streams; other parts are skipped.
 * Undefined when there is no such part. A failure stops reading (the rest of the body is drained unread).
 */
function storeMultipart(req: IncomingMessage, objects: ObjectStore, rename: string, options: UploadOptions): Promise<StoredUpload | undefined> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: req.headers });
    } catch (error) {
      reject(HttpError.badRequest(`invalid multipart body: ${(error as Error).message}`));
      return;
    }
    let upload: Promise<StoredUpload> | undefined;
    let file: Readable | undefined;
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      req.unpipe(parser);
      req.resume();
      // A put still reading the part fails too, leaving nothing (a client gone mid-upload).
      file?.destroy(error instanceof Error ? error : new Error(String(error)));
      // Bytes stored before the body turned out broken are not recorded anywhere: remove them.
      void upload?.then((stored) => objects.delete(attachmentKey(stored.uuid))).catch(() => undefined);
      reject(error);
    };
    parser.on('file', (field, stream, info) => {
      if (field !== ATTACHMENT_FIELD || upload !== undefined) {
        stream.resume();
        return;
      }
      file = stream;
      const name = rename !== '' ? rename : baseName(info.filename ?? '');
      upload = name === '' ? Promise.reject(HttpError.badRequest(NO_NAME_MESSAGE)) : store(objects, name, stream, options);
      upload.catch(fail);
    });
    parser.on('error', (error: Error) => fail(HttpError.badRequest(`invalid multipart body: ${error.message}`)));
    parser.on('close', () => {
      if (upload === undefined) {
        settled = true;
        resolve(undefined);
        return;
      }
      upload.then((stored) => {
        if (settled) return;
        settled = true;
        resolve(stored);
      }, fail);
    });
    req.on('error', fail);
    req.on('close', () => {
      if (!req.complete) fail(clientGone());
    });
    req.pipe(parser);
  });
}

/**
 * Stores the request's upload and answers where and what it is. 400 when there is no file or name, or the type is
 * forbidden; 413 when it is too large. The caller records it, and deletes the bytes if recording fails.
 */
export async function receiveUpload(req: IncomingMessage, query: GoValues, objects: ObjectStore, options: UploadOptions): Promise<StoredUpload> {
  const rename = goFormString(query, 'name');
  const contentType = (req.headers['content-type'] ?? '').toLowerCase();
  try {
    if (contentType.startsWith('multipart/form-data')) {
      const stored = await storeMultipart(req, objects, rename, options);
      if (stored === undefined) throw HttpError.badRequest(`no file in the multipart field "${ATTACHMENT_FIELD}"`);
      return stored;
    }
    if (rename === '') throw HttpError.badRequest(NO_NAME_MESSAGE);
    // Piped rather than iterated, so that a refusal can unpipe it and drop the rest (below).
    const body = new PassThrough();
    const abandon = (error: Error) => body.destroy(error);
    req.once('error', abandon);
    req.once('close', () => {
      if (!req.complete) abandon(clientGone());
    });
    req.pipe(body);
    return await store(objects, rename, body, options);
  } catch (error) {
    // Whatever the client still sends is read and dropped, so the refusal reaches it on a usable connection.
    req.unpipe();
    req.resume();
    throw error;
  }
}
