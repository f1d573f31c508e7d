/** What the S3 driver adds to the contract (contract.test.ts): the bucket, the key prefix and openObjectStore. */
import { type TestS3Server, startTestS3Server } from '@cairn/testing';
import { openObjectStore } from './open';
import { type S3Settings, s3ObjectStore } from './s3';
import type { ObjectStore } from './types';

let server: TestS3Server;
const stores: ObjectStore[] = [];

beforeAll(async () => {
  server = await startTestS3Server({ bucket: 'prefixes' });
});

afterAll(async () => {
  await Promise.all(stores.map((store) => store.close()));
  await server?.stop();
});

function settings(basePath: string, bucket = server.bucket): S3Settings {
  return {
    type: 'minio',
    endpoint: server.endpoint,
    accessKeyId: server.accessKeyId,
    secretAccessKey: server.secretAccessKey,
    bucket,
    location: 'us-east-1',
    basePath,
    useSsl: false,
    insecureSkipVerify: false,
  };
}

function open(basePath: string, bucket?: string): ObjectStore {
  const store = openObjectStore(settings(basePath, bucket));
  stores.push(store);
  return store;
}

async function* text(value: string): AsyncIterable<Uint8Array> {
  yield Buffer.from(value);
}

async function read(store: ObjectStore, key: string): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of (await store.open(key)).body) parts.push(part as Buffer);
  return Buffer.concat(parts).toString();
}

it('keeps objects under MINIO_BASE_PATH, with or without its slashes', async () => {
  await open('attachments/').put('a/key', text('under attachments'));
  await open('other').put('a/key', text('under other'));

  const whole = open('');
  expect(await read(whole, 'attachments/a/key')).toBe('under attachments');
  expect(await read(whole, 'other/a/key')).toBe('under other');
  expect(await whole.stat('a/key')).toBeUndefined();
  expect(await read(open('/attachments'), 'a/key')).toBe('under attachments');
});

it('creates a missing bucket on first use and uses an existing one', async () => {
  await open('', 'created-on-use').put('first', text('one'));
  expect(await read(open('', 'created-on-use'), 'first')).toBe('one');
});

it('reports a refusal as an error, not as a missing object', async () => {
  const store = s3ObjectStore({ ...settings(''), accessKeyId: 'UNKNOWN' });
  stores.push(store);
  await expect(store.stat('any')).rejects.toMatchObject({ $metadata: { httpStatusCode: 403 } });
  await expect(store.open('any')).rejects.toMatchObject({ $metadata: { httpStatusCode: 403 } });
});
