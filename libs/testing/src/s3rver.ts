/**
 * An S3-compatible server for tests: s3rver in a child process (so its memory and CPU are not the test's) on a free
 * loopback port, its data in a temporary directory removed by stop(). The bucket is not created: the driver does
 * that on first use, as Gitea does at start.
 *
 * s3rver 3.7 does not implement AbortMultipartUpload (it answers 405), so the child adds it: it removes the
 * upload's stored parts, which is what S3 and MinIO do.
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';

export interface TestS3Server {
  /** `127.0.0.1:<port>`, as `[storage] MINIO_ENDPOINT` takes it (plain HTTP: MINIO_USE_SSL = false). */
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  bucket: string;
  /** The `[attachment]` settings (env-override form: `{ attachment: { STORAGE_TYPE: 'minio', … } }`) for an instance. */
  settings: Record<string, Record<string, string>>;
  /** Multipart uploads begun and neither completed nor aborted: a driver must leave none. */
  pendingUploads(): Promise<number>;
  stop(): Promise<void>;
}

// s3rver's fixed account.
const ACCESS_KEY_ID = 'S3RVER';
const SECRET_ACCESS_KEY = 'S3RVER';
// s3rver keeps a bucket's multipart uploads in this directory of the bucket's (stores/filesystem.js).
const UPLOADS_DIR = '._S3rver_uploads';

const CHILD = `
const path = require('node:path');
const fs = require('node:fs/promises');
const [s3rverPath, directory] = process.argv.slice(1);
const S3rver = require(s3rverPath);
const server = new S3rver({ address: '127.0.0.1', port: 0, directory, silent: true });
server.middleware.unshift(async (ctx, next) => {
  const uploadId = ctx.query.uploadId;
  if (ctx.method !== 'DELETE' || typeof uploadId !== 'string') return next();
  if (!/^[0-9a-f]+$/.test(uploadId)) { ctx.status = 400; return; }
  const bucket = decodeURIComponent(ctx.path.split('/')[1] || '');
  const dir = path.join(directory, bucket, ${JSON.stringify(UPLOADS_DIR)}, uploadId);
  try { await fs.access(dir); } catch { ctx.status = 404; ctx.body = '<Error><Code>NoSuchUpload</Code></Error>'; ctx.type = 'application/xml'; return; }
  await fs.rm(dir, { recursive: true, force: true });
  ctx.status = 204;
});
let stopping = false;
const stop = () => { if (stopping) return; stopping = true; server.close().finally(() => process.exit(0)); };
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
server.run().then((address) => process.stdout.write(JSON.stringify({ port: address.port }) + '\\n'), (error) => { console.error(error); process.exit(1); });
`;

/** Starts s3rver; `bucket` names the bucket the driver under test is to use (default `cairn-test`). */
export async function startTestS3Server(options: { bucket?: string } = {}): Promise<TestS3Server> {
  const bucket = options.bucket ?? 'cairn-test';
  const directory = await mkdtemp(path.join(tmpdir(), 'cairn-s3rver-'));
  const child = spawn(process.execPath, ['-e', CHILD, require.resolve('s3rver'), directory], { stdio: ['pipe', 'pipe', 'inherit'] });
  let port: number;
  try {
    port = await readPort(child);
  } catch (error) {
    child.kill('SIGKILL');
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
  const endpoint = `127.0.0.1:${port}`;
  return {
    endpoint,
    accessKeyId: ACCESS_KEY_ID,
    secretAccessKey: SECRET_ACCESS_KEY,
    bucket,
    settings: {
      attachment: {
        STORAGE_TYPE: 'minio',
        MINIO_ENDPOINT: endpoint,
        MINIO_ACCESS_KEY_ID: ACCESS_KEY_ID,
        MINIO_SECRET_ACCESS_KEY: SECRET_ACCESS_KEY,
        MINIO_BUCKET: bucket,
        MINIO_USE_SSL: 'false',
      },
    },
    async pendingUploads() {
      try {
        return (await readdir(path.join(directory, bucket, UPLOADS_DIR))).length;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
        throw error;
      }
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(directory, { recursive: true, force: true });
    },
  };
}

function readPort(child: ChildProcessByStdio<Writable, Readable, null>): Promise<number> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    const failed = (code: number | null) => reject(new Error(`s3rver exited (code ${code}) before listening`));
    child.once('exit', failed);
    child.once('error', reject);
    lines.once('line', (line) => {
      child.off('exit', failed);
      lines.close();
      const { port } = JSON.parse(line) as { port: number };
      resolve(port);
    });
  });
}
