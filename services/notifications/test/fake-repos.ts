/**
 * The repos service as notifications sees it: a real gRPC server answering RepoService.FilterReadable (the only
 * call notifications makes) from an in-memory table of who may read what, recording every request.
 */
import { silentLogger } from '@cairn/log';
import { type FilterReadableRequest, RepoServiceService } from '@cairn/proto/cairn/repos/v1/repos_service';
import { type CairnError, type RpcServer, createRpcServer, anyCaller } from '@cairn/rpc';

export interface FakeRepos {
  /** `127.0.0.1:<port>`, for `[services.repos] ADDR`. */
  addr: string;
  /** Viewer id (0: anonymous) → the repository ids they may read. */
  readable: Map<number, ReadonlySet<number>>;
  /** Every FilterReadable request, in order. */
  calls: FilterReadableRequest[];
  /** When set, FilterReadable fails with it (a repos service that is down or refuses). */
  failure: CairnError | undefined;
  stop(): Promise<void>;
}

export async function startFakeRepos(): Promise<FakeRepos> {
  const server: RpcServer = createRpcServer({ service: 'repos', logger: silentLogger() });
  const fake: FakeRepos = {
    addr: '',
    readable: new Map(),
    calls: [],
    failure: undefined,
    stop: () => server.stop(0),
  };
  server.addService(
    { filterReadable: RepoServiceService.filterReadable },
    {
      async filterReadable(request) {
        fake.calls.push(request);
        if (fake.failure !== undefined) throw fake.failure;
        const readable = fake.readable.get(request.viewer?.userId ?? 0) ?? new Set<number>();
        return { repoIds: request.repoIds.filter((id) => readable.has(id)) };
      },
    },
    anyCaller(RepoServiceService),
  );
  fake.addr = `127.0.0.1:${await server.start('127.0.0.1:0')}`;
  server.setServing(true);
  return fake;
}
