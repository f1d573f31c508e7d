/** gRPC endpoints of the services, `[services.<name>] LISTEN / ADDR`. */
import type { SettingsReader } from './settings-reader';
import { GRPC_SERVICES, type GrpcServiceName, type ServiceEndpoint } from './types';
import { type HostPort, formatHostPort, parseHostPort } from './values';

/** Each service's default gRPC port (it listens on 127.0.0.1 by default). */
export const DEFAULT_GRPC_PORTS: Readonly<Record<GrpcServiceName, number>> = {
  accounts: 50051,
  notifications: 50052,
  repos: 50053,
  'git-storage': 50054,
  social: 50055,
  issues: 50056,
  hooks: 50057,
  migrations: 50058,
};

const EXPECTED_ADDRESS = 'expected host:port with a port from 0 to 65535, e.g. 127.0.0.1:50051';

// A wildcard listen address is not something a client can dial: use the loopback of the same family.
const DIALABLE_HOST: Record<string, string> = { '0.0.0.0': '127.0.0.1', '[::]': '[::1]' };

export function readServiceEndpoints(reader: SettingsReader): Record<GrpcServiceName, ServiceEndpoint> {
  return Object.fromEntries(
    GRPC_SERVICES.map((name) => {
      const section = `services.${name}`;
      const listen = reader.parse<HostPort>(
        section,
        'LISTEN',
        { host: '127.0.0.1', port: DEFAULT_GRPC_PORTS[name] },
        parseHostPort,
        EXPECTED_ADDRESS,
      );
      const dialable = { host: DIALABLE_HOST[listen.host] ?? listen.host, port: listen.port };
      const addr = reader.parse<HostPort>(section, 'ADDR', dialable, parseHostPort, EXPECTED_ADDRESS);
      return [name, { listen: formatHostPort(listen), addr: formatHostPort(addr) }];
    }),
  ) as Record<GrpcServiceName, ServiceEndpoint>;
}
