/**
 * The repos service as accounts sees it: a real gRPC server answering the three calls accounts makes before deleting
 * an owner (CountOwnerRepositories, ListOwnerRepositories, DeleteRepository) from an in-memory table of who owns
 * which repository, recording every call.
 */
import { silentLogger } from '@cairn/log';
import type { Actor } from '@cairn/proto/cairn/common/v1/common';
import { Repository, RepoServiceService } from '@cairn/proto/cairn/repos/v1/repos_service';
import { CairnError, createRpcServer, anyCaller } from '@cairn/rpc';

export interface FakeRepos {
  /** `127.0.0.1:<port>`, for `[services.repos] ADDR`. */
  addr: string;
  /** Adds a repository owned by `ownerId`; answers its id. */
  add(ownerId: number): number;
  /** Removes a repository, as if deleted through the API. */
  remove(id: number): void;
  /** The ids of the repositories `ownerId` still owns. */
  ownedBy(ownerId: number): number[];
  /** Every call, by RPC name, in order. */
  calls: Array<{ rpc: 'count' | 'list' | 'delete'; ownerId?: number; id?: number; actor?: Actor }>;
  stop(): Promise<void>;
}

export async function startFakeRepos(): Promise<FakeRepos> {
  const owners = new Map<number, number>();
  let lastId = 0;
  const server = createRpcServer({ service: 'repos', logger: silentLogger() });
  const ownedBy = (ownerId: number) => [...owners].filter(([, owner]) => owner === ownerId).map(([id]) => id);
  const fake: FakeRepos = {
    addr: '',
    add(ownerId) {
      owners.set(++lastId, ownerId);
      return lastId;
    },
    remove: (id) => void owners.delete(id),
    ownedBy,
    calls: [],
    stop: () => server.stop(0),
  };
  server.addService(
    {
      countOwnerRepositories: RepoServiceService.countOwnerRepositories,
      listOwnerRepositories: RepoServiceService.listOwnerRepositories,
      deleteRepository: RepoServiceService.deleteRepository,
    },
    {
      async countOwnerRepositories({ ownerId }) {
        fake.calls.push({ rpc: 'count', ownerId });
        return { total: ownedBy(ownerId).length };
      },
      async listOwnerRepositories({ ownerId, viewer, page }) {
        fake.calls.push({ rpc: 'list', ownerId, actor: viewer });
        const ids = ownedBy(ownerId);
        const limit = page?.limit ?? 30;
        const start = ((page?.page ?? 1) - 1) * limit;
        const repositories = ids.slice(start, start + limit).map((id) => ({ repository: Repository.fromPartial({ id, ownerId }) }));
        return { repositories, total: ids.length };
      },
      async deleteRepository({ id, actor }) {
        fake.calls.push({ rpc: 'delete', id, actor });
        if (!actor?.isAdmin) throw CairnError.denied('user should be the owner of the repo');
        if (!owners.delete(id)) throw CairnError.notFound('repository does not exist');
        return {};
      },
    },
    anyCaller(RepoServiceService),
  );
  fake.addr = `127.0.0.1:${await server.start('127.0.0.1:0')}`;
  server.setServing(true);
  return fake;
}
