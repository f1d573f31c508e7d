/**
 * In-memory repos (GetRepository, GetPushPolicy) and git-storage smart HTTP streams for gateway tests of git
 * transport: repositories are set per test with each viewer's permission; the streams record what the gateway
 * sent (first message, body chunks, call options) and answer with what the test scripted.
 */
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import type { InfoRefsRequest, ReceivePackRequest, UploadPackRequest } from '@cairn/proto/cairn/git/v1/git_service';
import { Permission, type PushRule, Repository } from '@cairn/proto/cairn/repos/v1/repos_service';
import { CairnError, type RpcCallOptions } from '@cairn/rpc';
import type { GatewayClients, ReposClient, SmartHttpClient } from '../../src/clients';
import { unusedClient } from './unused-client';

export interface HostedRepo {
  repository: Repository;
  /** The viewer's permission; undefined: the viewer may not read it (NOT_FOUND). */
  permissionFor(viewer: Actor | undefined): Permission | undefined;
  /** Former owner/name pairs answered with a redirect. */
  formerNames?: string[];
  rules?: PushRule[];
}

export function repository(fields: Partial<Repository>): Repository {
  return Repository.fromPartial({ units: [{ key: 'repo.code' }], ownerVisibility: 'public', storage: 'default', defaultBranch: 'main', ...fields });
}

export function permission(mode: 'none' | 'read' | 'write' | 'admin' | 'owner'): Permission {
  return Permission.fromPartial({ accessMode: mode, units: { 'repo.code': mode } });
}

export interface RecordedStream<Req> {
  requests: Req[];
  /** Total body bytes after the first message. */
  bodyBytes: number;
  options: RpcCallOptions | undefined;
  /** Set once the gateway's signal aborted (the client went away). */
  aborted: boolean;
  done: boolean;
}

export type Script = (signal: AbortSignal | undefined) => AsyncIterable<Buffer>;

export class FakeGitHosting {
  readonly repos = new Map<string, HostedRepo>();
  readonly infoRefsCalls: Array<{ request: InfoRefsRequest; options: RpcCallOptions | undefined }> = [];
  readonly uploads: Array<RecordedStream<UploadPackRequest>> = [];
  readonly receives: Array<RecordedStream<ReceivePackRequest>> = [];
  readonly pushPolicyCalls: Array<{ pusher: Actor | undefined; id: number }> = [];
  readonly getRepositoryCalls: Array<{ viewer: Actor | undefined; owner: string; name: string }> = [];
  /** What the streams answer; by default a few fixed bytes. */
  script: Script = async function* () {
    yield Buffer.from('0008NAK\n');
  };

  add(owner: string, name: string, hosted: HostedRepo): void {
    this.repos.set(`${owner}/${name}`.toLowerCase(), hosted);
  }

  private find(owner: string, name: string): { hosted: HostedRepo; redirect: boolean } | undefined {
    const key = `${owner}/${name}`.toLowerCase();
    const direct = this.repos.get(key);
    if (direct !== undefined) return { hosted: direct, redirect: false };
    for (const hosted of this.repos.values()) {
      if (hosted.formerNames?.some((former) => former.toLowerCase() === key)) return { hosted, redirect: true };
    }
    return undefined;
  }

  /** Consumes a request stream as git-storage would, recording it, while the script answers. */
  private async *serve<Req extends { data: Buffer }>(requests: AsyncIterable<Req>, options: RpcCallOptions | undefined, record: RecordedStream<Req>): AsyncIterable<{ data: Buffer }> {
    options?.signal?.addEventListener('abort', () => (record.aborted = true));
    const reading = (async () => {
      for await (const request of requests) {
        if (record.requests.length > 0) record.bodyBytes += request.data.length;
        record.requests.push(request);
      }
    })();
    await reading;
    try {
      for await (const data of this.script(options?.signal)) yield { data };
    } finally {
      record.done = true;
    }
  }

  install(clients: GatewayClients): void {
    const repos = partialClient<ReposClient>('repos', {
      getRepository: async (request) => {
        this.getRepositoryCalls.push({ viewer: request.viewer, owner: request.owner, name: request.name });
        const found = this.find(request.owner, request.name);
        const granted = found?.hosted.permissionFor(request.viewer);
        if (found === undefined || granted === undefined) throw CairnError.notFound('repository does not exist', { reason: 'repo_not_found' });
        const { repository: repo } = found.hosted;
        if (found.redirect) return { redirect: { owner: repo.ownerName, name: repo.name } };
        return { repository: { repository: repo, permission: granted } };
      },
      getPushPolicy: async (request) => {
        this.pushPolicyCalls.push({ pusher: request.pusher, id: request.id });
        const hosted = [...this.repos.values()].find((candidate) => candidate.repository.id === request.id);
        const granted = hosted?.permissionFor(request.pusher);
        if (hosted === undefined || granted === undefined) throw CairnError.notFound('repository does not exist');
        if (!['write', 'admin', 'owner'].includes(granted.units['repo.code'] ?? 'none')) throw CairnError.denied('user should have a permission to write to a repo');
        return { repository: hosted.repository, rules: hosted.rules ?? [], tagRules: [] };
      },
    });
    const smartHttp: SmartHttpClient = {
      infoRefs: (request, options) => {
        this.infoRefsCalls.push({ request, options });
        return wrap(this.script(options?.signal));
      },
      uploadPack: (requests, options) => {
        const record: RecordedStream<UploadPackRequest> = { requests: [], bodyBytes: 0, options, aborted: false, done: false };
        this.uploads.push(record);
        return this.serve(requests, options, record);
      },
      receivePack: (requests, options) => {
        const record: RecordedStream<ReceivePackRequest> = { requests: [], bodyBytes: 0, options, aborted: false, done: false };
        this.receives.push(record);
        return this.serve(requests, options, record);
      },
    };
    clients.repos = repos;
    clients.smartHttp = smartHttp;
  }
}

/** A client with the given methods; any other answers as a service the test does not run. */
function partialClient<T extends object>(service: string, methods: Partial<T>): T {
  const fallback = unusedClient<T>(service);
  return new Proxy(methods as T, { get: (target, key) => (key in target ? Reflect.get(target, key) : Reflect.get(fallback, key)) });
}

async function* wrap(chunks: AsyncIterable<Buffer>): AsyncIterable<{ data: Buffer }> {
  for await (const data of chunks) yield { data };
}
