/**
 * A real gRPC server standing in for accounts (UserService only, every method UNIMPLEMENTED unless given),
 * for tests of what goes over the wire: the health service behind /api/healthz, calls in flight at shutdown.
 */
import { silentLogger } from '@cairn/log';
import { UserServiceService } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { type AsyncServiceOf, CairnError, Code, type RpcServer, createRpcServer, anyCaller } from '@cairn/rpc';

export type UserServiceImpl = AsyncServiceOf<typeof UserServiceService>;

export interface GrpcAccounts {
  server: RpcServer;
  /** `127.0.0.1:<port>`, for `CAIRN__services_0X2E_accounts__ADDR`. */
  addr: string;
}

export async function startGrpcAccounts(handlers: Partial<UserServiceImpl> = {}): Promise<GrpcAccounts> {
  const unimplemented = Object.fromEntries(
    Object.keys(UserServiceService).map((key) => [
      key,
      async () => {
        throw new CairnError(Code.UNIMPLEMENTED, `${key} is not part of this test`);
      },
    ]),
  ) as unknown as UserServiceImpl;
  const server = createRpcServer({ service: 'accounts', logger: silentLogger() });
  server.addService(UserServiceService, { ...unimplemented, ...handlers }, anyCaller(UserServiceService));
  const port = await server.start('127.0.0.1:0');
  server.setServing(true);
  return { server, addr: `127.0.0.1:${port}` };
}
