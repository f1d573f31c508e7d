/**
 * The gateway's dependencies for /api/healthz: every gRPC service of the configuration (the gateway is the
 * front of all of them), each asked over the standard gRPC health service at `[services.<name>] ADDR`.
 * Each keeps one health channel, so a probe costs one small RPC, not a new connection.
 */
import { type CairnConfig, GRPC_SERVICES } from '@cairn/config';
import { createHealthClient } from '@cairn/rpc';
import type { DependencyCheck } from './healthz';

/** A service that does not answer within this is failing as far as a probe is concerned. */
export const HEALTH_CHECK_TIMEOUT_MS = 1_000;

export interface GrpcDependencyChecks {
  checks: DependencyCheck[];
  close(): void;
}

export function grpcDependencyChecks(config: CairnConfig): GrpcDependencyChecks {
  const clients = GRPC_SERVICES.map((name) => ({ name, client: createHealthClient(config.services[name].addr) }));
  return {
    checks: clients.map(({ name, client }) => ({
      name: `${name}:grpc`,
      check: () => client.probe({ timeoutMs: HEALTH_CHECK_TIMEOUT_MS }),
    })),
    close: () => {
      for (const { client } of clients) client.close();
    },
  };
}
