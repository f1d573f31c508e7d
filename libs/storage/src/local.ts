/**
 * The local-directory driver (Gitea's modules/storage/local.go): an object is a file under the root at its key.
 * A put writes a temporary file beside the target and renames it into place, so readers never see a partial object
 * and a crash leaves at most a `.tmp-` file (removed by the next put's directory or by hand).
 */
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { type ObjectStore, type OpenedObject, type PutOptions, type StoredObject, ObjectNotFoundError, checkKey, limited } from './types';

/** Read and write-ahead size: 256 KiB rather than fs streams' 64 KiB and 16 KiB, fewer system calls and chunks per file. */
const CHUNK = 256 << 10;

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

export function localObjectStore(root: string): ObjectStore {
  const pathOf = (key: string) => join(root, checkKey(key));
  return {
    async put(key: string, body: AsyncIterable<Uint8Array>, options: PutOptions = {}): Promise<StoredObject> {
      const target = pathOf(key);
      await mkdir(dirname(target), { recursive: true });
      const temporary = `${target}.tmp-${randomUUID()}`;
      const counter = { size: 0 };
      // The file takes up to CHUNK bytes ahead, so the source is not stopped after every socket read while the disk
      // catches up.
      const file = createWriteStream(temporary, { flags: 'wx', highWaterMark: CHUNK });
      try {
        // The counting step is a generator pipeline() drives directly (no Readable.from in between).
        await pipeline(body, (source: AsyncIterable<Uint8Array>) => limited(source, options.maxBytes, counter), file);
        await rename(temporary, target);
      } catch (error) {
        // A body that fails at once can fail before the file is even open: removing it before the stream has
        // closed would leave the file its pending open then creates.
        if (!file.closed) await new Promise<void>((resolve) => file.once('close', () => resolve()));
        await rm(temporary, { force: true });
        throw error;
      }
      return { size: counter.size };
    },
    async open(key: string): Promise<OpenedObject> {
      const path = pathOf(key);
      try {
        const found = await stat(path);
        // A directory holds other keys (`a/b` under `a`); it is not an object itself, as in S3.
        if (!found.isFile()) throw new ObjectNotFoundError(key);
        return { size: found.size, body: createReadStream(path, { highWaterMark: CHUNK }) };
      } catch (error) {
        if (isMissing(error)) throw new ObjectNotFoundError(key);
        throw error;
      }
    },
    async stat(key: string): Promise<StoredObject | undefined> {
      try {
        const found = await stat(pathOf(key));
        return found.isFile() ? { size: found.size } : undefined;
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },
    async delete(key: string): Promise<void> {
      await rm(pathOf(key), { force: true });
    },
    async close(): Promise<void> {},
  };
}
