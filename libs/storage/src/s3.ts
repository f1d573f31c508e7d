/**
 * The S3-compatible driver (Gitea's modules/storage/minio.go, `STORAGE_TYPE = minio`): path-style requests to
 * `MINIO_ENDPOINT`, objects under `MINIO_BASE_PATH` in `MINIO_BUCKET`, the bucket created on first use when missing.
 * A put is a multipart upload of fixed-size parts (a single PutObject when the body fits in one part), so memory
 * stays bounded whatever the size and the previous object is only replaced once every byte arrived; a failed or
 * refused put aborts the multipart upload, leaving neither an object nor stored parts behind. (The SDK's
 * lib-storage Upload is not used: it buffers a fresh copy of every part, which left memory growing by ~100 MiB
 * over a 200 MB upload before the garbage collector caught up.)
 */
import { Agent } from 'node:https';
import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  type BucketLocationConstraint,
  type CompletedPart,
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import type { ObjectStoreSettings } from '@cairn/config';
import { type ObjectStore, type OpenedObject, type PutOptions, type StoredObject, ObjectNotFoundError, checkKey, limited } from './types';

export type S3Settings = Extract<ObjectStoreSettings, { type: 'minio' }>;

/**
 * A put holds two parts in memory (16 MiB, reused for every part), and 8 MiB parts allow objects up to 80 GB under
 * S3's 10,000-part limit, far beyond `[attachment] MAX_SIZE`'s default 2 GiB.
 */
const PART_SIZE = 8 * 1024 * 1024;

/** Gitea's default region: a bucket there is created without a LocationConstraint, which S3 refuses for it. */
const DEFAULT_REGION = 'us-east-1';

function statusOf(error: unknown): number | undefined {
  return error instanceof S3ServiceException ? error.$metadata.httpStatusCode : undefined;
}

function isMissing(error: unknown): boolean {
  return statusOf(error) === 404 || (error instanceof S3ServiceException && (error.name === 'NoSuchKey' || error.name === 'NotFound'));
}

/** `MINIO_BASE_PATH` as a key prefix: no leading slash, one trailing slash unless empty (Gitea's buildMinioPath). */
function prefixOf(basePath: string): string {
  const trimmed = basePath.replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? '' : `${trimmed}/`;
}

/**
 * The body cut into `size`-byte parts (the last one shorter, and one empty part for an empty body), copied into
 * two buffers used in turn: a part's buffer is filled again only when the part after it is asked for, so the
 * caller must be done with a part by then.
 */
async function* fixedParts(body: AsyncIterable<Uint8Array>, size: number): AsyncGenerator<Buffer, void> {
  const buffers = [Buffer.allocUnsafe(size), Buffer.allocUnsafe(size)];
  let current = 0;
  let filled = 0;
  let yielded = false;
  for await (const chunk of body) {
    for (let offset = 0; offset < chunk.byteLength; ) {
      const length = Math.min(size - filled, chunk.byteLength - offset);
      buffers[current].set(chunk.subarray(offset, offset + length), filled);
      filled += length;
      offset += length;
      if (filled === size) {
        yield buffers[current];
        yielded = true;
        current = 1 - current;
        filled = 0;
      }
    }
  }
  if (filled > 0 || !yielded) yield buffers[current].subarray(0, filled);
}

export function s3ObjectStore(settings: S3Settings): ObjectStore {
  const client = new S3Client({
    endpoint: `${settings.useSsl ? 'https' : 'http'}://${settings.endpoint}`,
    region: settings.location,
    forcePathStyle: true,
    // Empty keys fall back to the SDK's credential chain (environment, instance role), as minio-go's IAM provider.
    credentials: settings.accessKeyId === '' ? undefined : { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
    // Checksums only where S3 requires them: MinIO and other S3-compatible servers do not all speak the SDK's
    // default aws-chunked CRC32 trailers.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    ...(settings.useSsl && settings.insecureSkipVerify ? { requestHandler: { httpsAgent: new Agent({ keepAlive: true, rejectUnauthorized: false }) } } : {}),
  });
  const bucket = settings.bucket;
  const prefix = prefixOf(settings.basePath);
  const objectKey = (key: string) => `${prefix}${checkKey(key)}`;

  // Gitea checks the bucket once at start (minio.go NewMinioStorage); here on first use, so a store that is never
  // used needs no reachable server. A failed check is retried by the next call.
  let bucketReady: Promise<void> | undefined;
  const ensureBucket = (): Promise<void> => {
    bucketReady ??= (async () => {
      try {
        await client.send(new HeadBucketCommand({ Bucket: bucket }));
        return;
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
      try {
        await client.send(
          new CreateBucketCommand({
            Bucket: bucket,
            CreateBucketConfiguration: settings.location === DEFAULT_REGION ? undefined : { LocationConstraint: settings.location as BucketLocationConstraint },
          }),
        );
      } catch (error) {
        // Another process created it in between.
        if (!(error instanceof S3ServiceException && (error.name === 'BucketAlreadyOwnedByYou' || error.name === 'BucketAlreadyExists'))) throw error;
      }
    })().catch((error: unknown) => {
      bucketReady = undefined;
      throw error;
    });
    return bucketReady;
  };

  return {
    async put(key: string, body: AsyncIterable<Uint8Array>, options: PutOptions = {}): Promise<StoredObject> {
      const Key = objectKey(key);
      await ensureBucket();
      const counter = { size: 0 };
      const parts = fixedParts(limited(body, options.maxBytes, counter), PART_SIZE);
      const first = await parts.next();
      // A body that fits in one part is one PutObject: nothing is written unless all of it arrived.
      const second = first.done ? first : await parts.next();
      if (first.done || second.done) {
        const data = first.done ? Buffer.alloc(0) : first.value;
        await client.send(new PutObjectCommand({ Bucket: bucket, Key, Body: data, ContentLength: data.length, ContentType: options.contentType }));
        return { size: counter.size };
      }
      const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key, ContentType: options.contentType }));
      if (!UploadId) throw new Error(`CreateMultipartUpload ${Key} returned no upload id`);
      const uploaded: CompletedPart[] = [];
      const send = async (PartNumber: number, data: Buffer): Promise<void> => {
        const { ETag } = await client.send(new UploadPartCommand({ Bucket: bucket, Key, UploadId, PartNumber, Body: data, ContentLength: data.length }));
        uploaded.push({ PartNumber, ETag });
      };
      // Parts go one at a time, in order; one uploads while the next fills (fixedParts' other buffer).
      let inFlight: Promise<void> | undefined;
      try {
        await send(1, first.value);
        let number = 2;
        for (let part: IteratorResult<Buffer, void> = second; !part.done; part = await parts.next()) {
          await inFlight;
          inFlight = send(number++, part.value);
          inFlight.catch(() => undefined);
        }
        await inFlight;
        await client.send(new CompleteMultipartUploadCommand({ Bucket: bucket, Key, UploadId, MultipartUpload: { Parts: uploaded } }));
      } catch (error) {
        // Abort only once no part is still on its way, or that part would be stored after the abort; and let go of
        // the body (an upload's request stream) when the failure was ours.
        await inFlight?.catch(() => undefined);
        await parts.return();
        await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key, UploadId })).catch((abortError: unknown) => {
          if (error instanceof Error && error.cause === undefined) error.cause = abortError;
        });
        throw error;
      }
      return { size: counter.size };
    },

    async open(key: string): Promise<OpenedObject> {
      const Key = objectKey(key);
      await ensureBucket();
      try {
        const response = await client.send(new GetObjectCommand({ Bucket: bucket, Key }));
        if (!(response.Body instanceof Readable)) throw new Error(`GetObject ${Key} returned no stream`);
        return { size: response.ContentLength ?? 0, body: response.Body };
      } catch (error) {
        if (isMissing(error)) throw new ObjectNotFoundError(key);
        throw error;
      }
    },

    async stat(key: string): Promise<StoredObject | undefined> {
      const Key = objectKey(key);
      await ensureBucket();
      try {
        const response = await client.send(new HeadObjectCommand({ Bucket: bucket, Key }));
        return { size: response.ContentLength ?? 0 };
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },

    async delete(key: string): Promise<void> {
      const Key = objectKey(key);
      await ensureBucket();
      try {
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key }));
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
    },

    async close(): Promise<void> {
      client.destroy();
    },
  };
}
