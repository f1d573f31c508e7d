/**
 * A 200 MB release asset uploaded (raw body, as `tea` and the API allow with `?name=`) and downloaded through
 * `browser_download_url`, then deleted: the gateway streaming into and out of the object store (local driver) with
 * repos recording and authorising it, against a bare `node:http` file server doing the same PUT, GET and DELETE of
 * the same bytes from the same disk. Both transfers stream from and to the same file, so client work is equal; the
 * gateway's peak memory over every run is bounded too (an upload or download that buffered would show there).
 */
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { basicAuth, httpRequest } from '../cairn';
import type { BenchContext, RunningBaseline, Side, TimedScenario, TimedSubjects } from './types';

const REPOSITORY = 'assets';
const ASSET = 'blob.bin';

interface Sent {
  status: number;
  body: string;
}

/** Streams `file` as the request body; answers the status and the (small) response body. */
function upload(url: string, method: string, headers: Record<string, string>, file: string, size: number, signal: AbortSignal): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method, headers: { ...headers, 'content-type': 'application/octet-stream', 'content-length': String(size) }, signal }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    request.on('error', reject);
    pipeline(fs.createReadStream(file), request).catch(reject);
  });
}

/** Downloads `url`, counting (and, when asked, hashing) the bytes. */
function download(url: string, signal: AbortSignal, hash?: ReturnType<typeof createHash>): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { signal }, (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          reject(new Error(`GET ${url} answered ${response.statusCode}`));
          return;
        }
        let bytes = 0;
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          hash?.update(chunk);
        });
        response.on('end', () => resolve(bytes));
        response.on('error', reject);
      })
      .on('error', reject);
  });
}

/** Writes `size` random bytes (incompressible, unlike zeros) and answers their sha256. */
async function writeRandomFile(file: string, size: number): Promise<string> {
  const hash = createHash('sha256');
  const out = fs.createWriteStream(file);
  async function* chunks(): AsyncIterable<Buffer> {
    for (let written = 0; written < size; ) {
      const chunk = randomBytes(Math.min(1 << 20, size - written));
      hash.update(chunk);
      written += chunk.length;
      yield chunk;
    }
  }
  await pipeline(chunks(), out);
  return hash.digest('hex');
}

async function jsonCall<T>(context: BenchContext, auth: string, method: string, apiPath: string, body: unknown, expected: number): Promise<T> {
  const answer = await httpRequest(`${context.cairnUrl}/api/v1${apiPath}`, {
    method,
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (answer.status !== expected) throw new Error(`${method} ${apiPath} answered ${answer.status}: ${answer.body}`);
  return JSON.parse(answer.body) as T;
}

async function prepare(size: number, context: BenchContext, signal: AbortSignal): Promise<TimedSubjects> {
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-bench-asset-'));
  let baseline: RunningBaseline | undefined;
  const stop = async (): Promise<void> => {
    await baseline?.stop();
    fs.rmSync(temp, { recursive: true, force: true });
  };
  try {
    const owner = await context.benchUser();
    const auth = basicAuth(owner.username, owner.password);
    await jsonCall(context, auth, 'POST', '/user/repos', { name: REPOSITORY, private: false, auto_init: true }, 201);
    const release = await jsonCall<{ id: number }>(context, auth, 'POST', `/repos/${owner.username}/${REPOSITORY}/releases`, { tag_name: 'v1', name: 'bench' }, 201);
    const assets = `${context.cairnUrl}/api/v1/repos/${owner.username}/${REPOSITORY}/releases/${release.id}/assets`;
    const source = path.join(temp, 'source.bin');
    const sourceHash = await writeRandomFile(source, size);
    const files = path.join(temp, 'files');
    fs.mkdirSync(files);
    baseline = await context.startBaseline('file-server', { BENCH_FILES_DIR: files });
    const baselineFile = `${baseline.url}/files/${ASSET}`;

    /** One upload, download and delete on `side`; answers the downloaded bytes' count. */
    const transfer = async (side: Side, runSignal: AbortSignal, hash?: ReturnType<typeof createHash>): Promise<number> => {
      if (side === 'baseline') {
        const put = await upload(baselineFile, 'PUT', {}, source, size, runSignal);
        if (put.status !== 201) throw new Error(`the baseline's PUT answered ${put.status}`);
        const bytes = await download(baselineFile, runSignal, hash);
        if ((await httpRequest(baselineFile, { method: 'DELETE' })).status !== 204) throw new Error("the baseline's DELETE failed");
        return bytes;
      }
      const created = await upload(`${assets}?name=${ASSET}`, 'POST', { authorization: auth }, source, size, runSignal);
      if (created.status !== 201) throw new Error(`uploading the asset answered ${created.status}: ${created.body}`);
      const asset = JSON.parse(created.body) as { id: number; size: number; browser_download_url: string };
      if (asset.size !== size) throw new Error(`the asset was recorded with ${asset.size} bytes, not ${size}`);
      // ROOT_URL names the public address; the download goes to the instance under test, anonymously (public).
      const bytes = await download(`${context.cairnUrl}${new URL(asset.browser_download_url).pathname}`, runSignal, hash);
      const deleted = await httpRequest(`${assets}/${asset.id}`, { method: 'DELETE', headers: { authorization: auth } });
      if (deleted.status !== 204) throw new Error(`deleting the asset answered ${deleted.status}: ${deleted.body}`);
      return bytes;
    };

    return {
      run: async (side, _workDir, runSignal) => {
        const bytes = await transfer(side, runSignal);
        if (bytes !== size) throw new Error(`downloaded ${bytes} bytes, not ${size}`);
      },
      check: async (checkSignal) => {
        for (const side of ['cairn', 'baseline'] as const) {
          const hash = createHash('sha256');
          await transfer(side, checkSignal, hash);
          const got = hash.digest('hex');
          if (got !== sourceHash) throw new Error(`${side} gave back other bytes (sha256 ${got}, sent ${sourceHash})`);
        }
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

export function createReleaseAssetScenario(size: number): TimedScenario {
  const megabytes = Math.round(size / 1e6);
  return {
    kind: 'timed',
    name: 'release-asset',
    description: `${megabytes} MB random bytes up (raw body) and down (browser_download_url), then deleted; baseline: node:http PUT/GET/DELETE of a file`,
    command: `POST …/releases/{id}/assets?name=${ASSET} (${megabytes} MB), GET browser_download_url, DELETE the asset`,
    prepare: (context, signal) => prepare(size, context, signal),
    memoryOf: 'gateway',
    // The targets: at least 0.8× the baseline's throughput (time ≤ 1.25×), gateway growth ≤ 64 MiB.
    targets: { maxTimeRatio: 1.25, maxRssGrowthMiB: 64 },
  };
}

export const releaseAssetScenario = createReleaseAssetScenario(200_000_000);
