/**
 * A minimal smart HTTP front for the tests, doing what the gateway does for `/{owner}/{repo}.git/…`: each
 * request becomes one SmartHttpService stream, bodies piped both ways (gzip request bodies inflated), the client's
 * disconnect cancels the call. Repositories are addressed as `/<repoId>.git`; pushes carry the PushContext and
 * branch and tag rules the test set for the repository.
 */
import { once } from 'node:events';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { BranchRule, PushContext, Repository, SmartHttpServiceService, TagRule } from '@cairn/proto/cairn/git/v1/git_service';
import type { AsyncClientOf } from '@cairn/rpc';
import { Code, isCairnError } from '@cairn/rpc';

export interface PushPolicy {
  push: PushContext;
  rules: BranchRule[];
  tagRules?: TagRule[];
}

export interface HttpBridge {
  /** `http://127.0.0.1:<port>/<repoId>.git` */
  url(repoId: number): string;
  close(): Promise<void>;
}

const PATH = /^\/(\d+)\.git\/(info\/refs|git-upload-pack|git-receive-pack)$/;

/**
 * Streams the call's messages as the response body. The status line waits for the first message, so a call that
 * fails at once (an unknown repository) can still answer 404.
 */
async function respond(res: ServerResponse, contentType: string, messages: AsyncIterable<{ data: Buffer }>): Promise<void> {
  const iterator = messages[Symbol.asyncIterator]();
  let next = await iterator.next();
  res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-cache' });
  while (next.done !== true) {
    if (!res.write(next.value.data)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
    next = await iterator.next();
  }
  res.end();
}

async function* bodyChunks(req: IncomingMessage): AsyncGenerator<Buffer> {
  const body: Readable = req.headers['content-encoding'] === 'gzip' ? req.pipe(createGunzip()) : req;
  for await (const chunk of body) yield chunk as Buffer;
}

export async function startHttpBridge(
  smartHttp: AsyncClientOf<typeof SmartHttpServiceService>,
  policyOf: (repoId: number) => PushPolicy,
): Promise<HttpBridge> {
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://bridge');
    const match = PATH.exec(url.pathname);
    if (match === null) {
      res.writeHead(404).end();
      return;
    }
    const repoId = Number(match[1]);
    const repository: Repository = { storage: '', repoId };
    const gitProtocol = String(req.headers['git-protocol'] ?? '');
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    const options = { signal: abort.signal };
    if (match[2] === 'info/refs') {
      const service = url.searchParams.get('service') ?? '';
      await respond(res, `application/x-${service}-advertisement`, smartHttp.infoRefs({ repository, service, gitProtocol }, options));
      return;
    }
    const contentType = `application/x-${match[2]}-result`;
    if (match[2] === 'git-upload-pack') {
      async function* requests() {
        yield { repository, gitProtocol, data: Buffer.alloc(0) };
        for await (const data of bodyChunks(req)) yield { repository: undefined, gitProtocol: '', data };
      }
      await respond(res, contentType, smartHttp.uploadPack(requests(), options));
      return;
    }
    const { push, rules, tagRules = [] } = policyOf(repoId);
    async function* requests() {
      yield { repository, gitProtocol, push, rules, tagRules, data: Buffer.alloc(0) };
      for await (const data of bodyChunks(req)) yield { repository: undefined, gitProtocol: '', push: undefined, rules: [], tagRules: [], data };
    }
    await respond(res, contentType, smartHttp.receivePack(requests(), options));
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      res.writeHead(isCairnError(error) && error.code === Code.NOT_FOUND ? 404 : 500, { 'content-type': 'text/plain' });
      res.end(error instanceof Error ? error.message : 'error');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (repoId) => `http://127.0.0.1:${port}/${repoId}.git`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
