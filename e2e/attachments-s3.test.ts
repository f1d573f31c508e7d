/**
 * Attachments on an S3-compatible object store, end to end: the whole instance with `[attachment] STORAGE_TYPE =
 * minio` against s3rver (started by the test in its own process), a release asset of several multipart parts
 * uploaded, downloaded byte for byte and deleted through the gateway, with the object at Gitea's key under
 * `MINIO_BASE_PATH` in the bucket (nothing on local disk), a refused upload leaving no object and no unfinished
 * multipart upload, and a repository's deletion removing its attachments' objects.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import path from 'node:path';
import { serviceEnvOverrides } from '@cairn/config';
import { type ObjectStore, attachmentKey, s3ObjectStore } from '@cairn/storage';
import { startTestS3Server, type TestS3Server } from '@cairn/testing';
import type { ApiResponse } from './support/client';
import { type Fixture, startFixture } from './support/fixture';
import { waitFor } from './support/instance';

jest.setTimeout(180_000);

interface ApiAttachment {
  id: number;
  uuid: string;
  size: number;
  browser_download_url: string;
}

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

describe('attachments on an S3-compatible store', () => {
  let s3: TestS3Server;
  let f: Fixture;
  let bucket: ObjectStore;
  let alice: Record<string, string>;
  let releaseId: number;

  const call = <T = unknown>(method: string, apiPath: string, headers?: Record<string, string>, body?: unknown): Promise<ApiResponse<T>> =>
    f.api.request<T>(method, `/api/v1${apiPath}`, { headers, body });
  const assets = () => `/repos/alice/app/releases/${releaseId}/assets`;

  beforeAll(async () => {
    s3 = await startTestS3Server();
    f = await startFixture('e2e_attachments_s3', ['alice'], serviceEnvOverrides({ attachment: { ...s3.settings.attachment, MAX_SIZE: '13' } }));
    // What the instance's settings name, read back independently of it.
    bucket = s3ObjectStore({
      type: 'minio',
      endpoint: s3.endpoint,
      accessKeyId: s3.accessKeyId,
      secretAccessKey: s3.secretAccessKey,
      bucket: s3.bucket,
      location: 'us-east-1',
      basePath: 'attachments/',
      useSsl: false,
      insecureSkipVerify: false,
    });
    alice = f.as('alice');
    expect((await call('POST', '/user/repos', alice, { name: 'app', auto_init: true })).status).toBe(201);
    const release = await call<{ id: number }>('POST', '/repos/alice/app/releases', alice, { tag_name: 'v1' });
    expect(release.status).toBe(201);
    releaseId = release.body.id;
  });

  afterAll(async () => {
    await bucket?.close();
    await f?.stop();
    await s3?.stop();
  });

  it('stores, serves and deletes a release asset in the bucket', async () => {
    // 12 MiB: two parts of the driver's 8 MiB multipart upload.
    const bytes = randomBytes(12 * 1024 * 1024);
    const form = new FormData();
    // Any type: `[repository.release] ALLOWED_TYPES` is empty by default, as Gitea's.
    form.append('attachment', new Blob([bytes]), 'build.bin');
    const created = await call<ApiAttachment>('POST', assets(), alice, form);
    expect(created.status).toBe(201);
    expect(created.body.size).toBe(bytes.length);
    expect(await bucket.stat(attachmentKey(created.body.uuid))).toEqual({ size: bytes.length });
    expect(existsSync(path.join(f.workDir, 'attachments'))).toBe(false);

    const downloaded = await fetch(created.body.browser_download_url);
    expect(downloaded.status).toBe(200);
    expect(sha256(new Uint8Array(await downloaded.arrayBuffer()))).toBe(sha256(bytes));

    expect((await call('DELETE', `${assets()}/${created.body.id}`, alice)).status).toBe(204);
    await waitFor('the deleted asset’s object to go', async () => ((await bucket.stat(attachmentKey(created.body.uuid))) === undefined ? true : undefined));
  });

  it('leaves no object and no unfinished multipart upload when an upload is over MAX_SIZE', async () => {
    // Over the limit after a first 8 MiB part went up, so the multipart upload is aborted; the gateway answers 413
    // while the client is still sending, and reads and drops the rest so that the client gets to read the answer.
    const boundary = 'cairn-e2e-boundary';
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="attachment"; filename="too-big.zip"\r\nContent-Type: application/zip\r\n\r\n`),
      randomBytes(14 * 1024 * 1024),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const status = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(`${f.instance.httpUrl}/api/v1${assets()}`, {
        method: 'POST',
        headers: { ...alice, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(body.length) },
      });
      request.on('response', (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.on('error', reject);
      request.end(body);
    });
    expect(status).toBe(413);
    expect((await call<unknown[]>('GET', assets(), alice)).body).toEqual([]);
    await waitFor('the refused upload’s multipart upload to be aborted', async () => ((await s3.pendingUploads()) === 0 ? true : undefined));
  });

  it("removes a deleted repository's attachments from the bucket", async () => {
    const created = await call<ApiAttachment>('POST', `${assets()}?name=notes.txt`, { ...alice, 'content-type': 'application/octet-stream' }, new TextEncoder().encode('notes'));
    expect(created.status).toBe(201);
    expect(await bucket.stat(attachmentKey(created.body.uuid))).toEqual({ size: 5 });
    expect((await call('DELETE', '/repos/alice/app', alice)).status).toBe(204);
    await waitFor('the repository’s attachment objects to go', async () => ((await bucket.stat(attachmentKey(created.body.uuid))) === undefined ? true : undefined));
  });
});
