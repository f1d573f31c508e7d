/**
 * The ObjectStore contract, one suite run against every driver: the local directory (on a temporary directory) and
 * the S3-compatible driver (against s3rver in a child process, so the server's memory is not the driver's).
 */
import { createHash, randomBytes } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { type TestS3Server, startTestS3Server } from '@cairn/testing';
import { localObjectStore } from './local';
import { s3ObjectStore } from './s3';
import { type ObjectStore, ObjectNotFoundError, ObjectTooLargeError } from './types';

interface Subject {
  store: ObjectStore;
  /** Partial data a failed put could leave behind: the local driver's temporary files, S3's unfinished uploads. */
  leftovers(): Promise<number>;
  stop(): Promise<void>;
}

const MIB = 1024 * 1024;

async function localSubject(): Promise<Subject> {
  const root = await mkdtemp(path.join(tmpdir(), 'cairn-storage-'));
  const store = localObjectStore(path.join(root, 'attachments'));
  return {
    store,
    async leftovers() {
      const entries = await readdir(root, { recursive: true }).catch(() => []);
      return entries.filter((entry) => path.basename(entry).includes('.tmp-')).length;
    },
    async stop() {
      await store.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

async function s3Subject(): Promise<Subject> {
  const server: TestS3Server = await startTestS3Server();
  const store = s3ObjectStore({
    type: 'minio',
    endpoint: server.endpoint,
    accessKeyId: server.accessKeyId,
    secretAccessKey: server.secretAccessKey,
    bucket: server.bucket,
    location: 'us-east-1',
    basePath: 'attachments/',
    useSsl: false,
    insecureSkipVerify: false,
  });
  return {
    store,
    leftovers: () => server.pendingUploads(),
    async stop() {
      await store.close();
      await server.stop();
    },
  };
}

async function* chunks(...parts: Uint8Array[]): AsyncIterable<Uint8Array> {
  for (const part of parts) yield part;
}

/** `size` random bytes in 1 MiB chunks, then `error` if given (a client that goes away midway). */
async function* generated(size: number, options: { error?: Error; hash?: ReturnType<typeof createHash>; onChunk?: () => void } = {}): AsyncIterable<Uint8Array> {
  for (let sent = 0; sent < size; sent += MIB) {
    const chunk = randomBytes(Math.min(MIB, size - sent));
    options.hash?.update(chunk);
    options.onChunk?.();
    yield chunk;
  }
  if (options.error) throw options.error;
}

async function readAll(body: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of body) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

async function contentOf(store: ObjectStore, key: string): Promise<Buffer> {
  return readAll((await store.open(key)).body);
}

describe.each([
  ['local', localSubject],
  ['s3', s3Subject],
] as const)('ObjectStore contract: %s driver', (_name, start) => {
  let subject: Subject;
  let store: ObjectStore;

  beforeAll(async () => {
    subject = await start();
    store = subject.store;
  });

  afterAll(async () => {
    await subject?.stop();
  });

  afterEach(async () => {
    expect(await subject.leftovers()).toBe(0);
  });

  it('stores, reads, sizes and deletes binary data', async () => {
    const bytes = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), randomBytes(70_000)]);
    expect(await store.put('round-trip', chunks(bytes.subarray(0, 1000), bytes.subarray(1000)))).toEqual({ size: bytes.length });

    expect(await store.stat('round-trip')).toEqual({ size: bytes.length });
    const opened = await store.open('round-trip');
    expect(opened.size).toBe(bytes.length);
    expect((await readAll(opened.body)).equals(bytes)).toBe(true);

    await store.delete('round-trip');
    expect(await store.stat('round-trip')).toBeUndefined();
    await expect(store.open('round-trip')).rejects.toBeInstanceOf(ObjectNotFoundError);
  });

  it('stores an empty object', async () => {
    expect(await store.put('empty', chunks())).toEqual({ size: 0 });
    expect(await store.stat('empty')).toEqual({ size: 0 });
    expect((await contentOf(store, 'empty')).length).toBe(0);
  });

  it('replaces an object on a second put', async () => {
    await store.put('overwritten', chunks(Buffer.from('first version, longer')));
    await store.put('overwritten', chunks(Buffer.from('second')));
    expect((await contentOf(store, 'overwritten')).toString()).toBe('second');
    expect(await store.stat('overwritten')).toEqual({ size: 6 });
  });

  it('keeps keys with sub-directories apart', async () => {
    await store.put('dir/a/one.bin', chunks(Buffer.from('one')));
    await store.put('dir/a/two.bin', chunks(Buffer.from('two')));
    await store.put('dir/a.bin', chunks(Buffer.from('beside')));
    expect((await contentOf(store, 'dir/a/one.bin')).toString()).toBe('one');
    expect((await contentOf(store, 'dir/a/two.bin')).toString()).toBe('two');
    expect((await contentOf(store, 'dir/a.bin')).toString()).toBe('beside');
    await store.delete('dir/a/one.bin');
    expect(await store.stat('dir/a/one.bin')).toBeUndefined();
    expect(await store.stat('dir/a/two.bin')).toEqual({ size: 3 });
    expect(await store.stat('dir/a')).toBeUndefined();
    await expect(store.open('dir/a')).rejects.toBeInstanceOf(ObjectNotFoundError);
  });

  it('reports a missing object', async () => {
    await expect(store.open('missing/object')).rejects.toEqual(new ObjectNotFoundError('missing/object'));
    expect(await store.stat('missing/object')).toBeUndefined();
  });

  it('deletes a missing object without error', async () => {
    await expect(store.delete('never-stored')).resolves.toBeUndefined();
    await store.put('deleted-twice', chunks(Buffer.from('x')));
    await store.delete('deleted-twice');
    await expect(store.delete('deleted-twice')).resolves.toBeUndefined();
  });

  it('accepts a body of exactly maxBytes', async () => {
    expect(await store.put('at-limit', chunks(Buffer.alloc(10, 1)), { maxBytes: 10 })).toEqual({ size: 10 });
  });

  it.each([
    ['in one part', 20, 10],
    ['after parts were sent', 30 * MIB, 20 * MIB],
  ])('refuses a body over maxBytes %s and keeps nothing of it', async (_when, size, maxBytes) => {
    await expect(store.put('too-large/new', generated(size), { maxBytes })).rejects.toEqual(new ObjectTooLargeError(maxBytes));
    expect(await store.stat('too-large/new')).toBeUndefined();

    await store.put('too-large/kept', chunks(Buffer.from('previous')));
    await expect(store.put('too-large/kept', generated(size), { maxBytes })).rejects.toBeInstanceOf(ObjectTooLargeError);
    expect((await contentOf(store, 'too-large/kept')).toString()).toBe('previous');
  });

  it.each([
    // Before a byte arrives: the local driver's file may not even be open yet when the failure comes.
    ['at once', 0],
    ['in one part', 100_000],
    ['after parts were sent', 25 * MIB],
  ])('keeps nothing of a body that fails %s', async (_when, size) => {
    const failure = new Error('client went away');
    await expect(store.put('failed/new', generated(size, { error: failure }))).rejects.toBe(failure);
    expect(await store.stat('failed/new')).toBeUndefined();

    await store.put('failed/kept', chunks(Buffer.from('previous')));
    await expect(store.put('failed/kept', generated(size, { error: failure }))).rejects.toBe(failure);
    expect((await contentOf(store, 'failed/kept')).toString()).toBe('previous');
  });

  it.each(['', '/absolute', '../escape', 'a/../../escape', 'a//b', 'a/./b', 'trailing/', 'space in key', 'back\\slash'])(
    'refuses the invalid key %j',
    async (key) => {
      await expect(store.put(key, chunks(Buffer.from('x')))).rejects.toThrow(/invalid object key/);
      await expect(store.open(key)).rejects.toThrow(/invalid object key/);
      await expect(store.stat(key)).rejects.toThrow(/invalid object key/);
      await expect(store.delete(key)).rejects.toThrow(/invalid object key/);
    },
  );

  it('streams 200 MB in and out with flat memory', async () => {
    const size = 200 * MIB;
    // What the driver holds, not what the collector has yet to free: the test's own 1 MiB chunks are garbage as soon
    // as the driver took them, and on a busy machine a lazy collector alone can keep 64 MiB of them.
    setFlagsFromString('--expose-gc');
    const collect = runInNewContext('gc') as () => void;
    collect();
    const baseline = process.memoryUsage.rss();
    let highWater = baseline;
    let chunks = 0;
    const sample = () => {
      highWater = Math.max(highWater, process.memoryUsage.rss());
    };
    // Every 32 chunks the driver took or gave (a full collection of a big test worker is not cheap).
    const chunkDone = () => {
      sample();
      if (++chunks % 32 === 0) collect();
    };
    const timer = setInterval(sample, 25);
    try {
      const written = createHash('sha256');
      expect(await store.put('large/object.bin', generated(size, { hash: written, onChunk: chunkDone }))).toEqual({ size });
      expect(await store.stat('large/object.bin')).toEqual({ size });

      const opened = await store.open('large/object.bin');
      expect(opened.size).toBe(size);
      const read = createHash('sha256');
      let count = 0;
      for await (const part of opened.body) {
        const bytes = part as Buffer;
        count += bytes.length;
        read.update(bytes);
        chunkDone();
      }
      expect(count).toBe(size);
      expect(read.digest('hex')).toBe(written.digest('hex'));
    } finally {
      clearInterval(timer);
      await store.delete('large/object.bin');
    }
    expect(highWater - baseline).toBeLessThanOrEqual(64 * MIB);
    // s3rver runs in this worker and hashes and copies every part again: 8 s alone, over 120 s in a loaded CI run.
  }, 300_000);
});
