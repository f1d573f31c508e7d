/**
 * The object store: one interface for the bytes Cairn keeps outside git and PostgreSQL (attachments, migration
 * assets), with a local-directory driver (the default, under the work directory) and an S3-compatible one (Gitea's
 * `STORAGE_TYPE = minio`). Keys are opaque relative paths (`[a-z0-9/_.-]`, no `..`); every body streams, so memory
 * stays flat whatever the object's size.
 */
import type { Readable } from 'node:stream';

export interface PutOptions {
  /** Refuse (ObjectTooLargeError) and keep nothing once more than this many bytes arrive. */
  maxBytes?: number;
  contentType?: string;
}

export interface StoredObject {
  size: number;
}

export interface OpenedObject {
  size: number;
  /** The bytes; destroy it to stop early. */
  body: Readable;
}

export interface ObjectStore {
  /**
   * Stores `body` under `key`, replacing any object there only once all of it arrived: a failed or refused put
   * leaves nothing (not even a partial object) and the previous object, if any, unchanged.
   */
  put(key: string, body: AsyncIterable<Uint8Array>, options?: PutOptions): Promise<StoredObject>;
  /** Opens the object; ObjectNotFoundError when there is none. */
  open(key: string): Promise<OpenedObject>;
  /** The object's size, or undefined when there is none. */
  stat(key: string): Promise<StoredObject | undefined>;
  /** Removes the object; removing one that is not there succeeds (deletions are retried). */
  delete(key: string): Promise<void>;
  /** Releases the driver's connections. */
  close(): Promise<void>;
}

export class ObjectNotFoundError extends Error {
  constructor(readonly key: string) {
    super(`object not found: ${key}`);
    this.name = 'ObjectNotFoundError';
  }
}

export class ObjectTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`object larger than ${maxBytes} bytes`);
    this.name = 'ObjectTooLargeError';
  }
}

const KEY = /^[A-Za-z0-9_.-]+(?:\/[A-Za-z0-9_.-]+)*$/;

/** Keys come from Cairn (uuids), never from users; refusing anything else keeps a driver inside its root. */
export function checkKey(key: string): string {
  if (!KEY.test(key) || key.split('/').some((part) => part === '.' || part === '..')) throw new Error(`invalid object key: ${JSON.stringify(key)}`);
  return key;
}

/** Counts the bytes going through and throws ObjectTooLargeError past `maxBytes`. */
export async function* limited(body: AsyncIterable<Uint8Array>, maxBytes: number | undefined, counter: { size: number }): AsyncIterable<Uint8Array> {
  for await (const chunk of body) {
    counter.size += chunk.byteLength;
    if (maxBytes !== undefined && counter.size > maxBytes) throw new ObjectTooLargeError(maxBytes);
    yield chunk;
  }
}

/**
 * Where an attachment's bytes are: Gitea's `Attachment.RelativePath()` (models/repo/attachment.go),
 * `<uuid[0]>/<uuid[1]>/<uuid>`, so a Gitea attachments directory or bucket works as it is, and no directory holds
 * every file.
 */
export function attachmentKey(uuid: string): string {
  return checkKey(`${uuid.slice(0, 1)}/${uuid.slice(1, 2)}/${uuid}`);
}
