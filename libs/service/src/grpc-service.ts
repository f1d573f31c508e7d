/**
 * The start-up and graceful stop every gRPC service shares, whichever process runs it: open the service's schema,
 * let the service acquire what it needs in order (clients, the outbox relay, bus consumers) and build its server,
 * then bind the server and report it serving. Stop runs once: the server stops first (no new calls, calls in
 * flight finish), then what the service acquired is released in reverse order, the pool last.
 */
import type { GrpcServiceName } from '@cairn/config';
import { type Database, openDatabase } from '@cairn/db';
import type { RunningService, ServiceStartOptions } from './index';

export interface GrpcServiceSpec {
  /** The service's name, also its `[services.<name>]` section. */
  name: GrpcServiceName;
  /** The service's database schema. */
  schema: string;
  /** Its migrations, applied before the pool is handed out. */
  migrationsDir?: string;
}

export interface GrpcServiceSetUp {
  db: Database;
  /** Registers how to release what was just acquired; stop (or a failed start) releases in reverse order. */
  onStop(release: () => Promise<void> | void): void;
}

/** The server a service builds (an `RpcServer` from @cairn/rpc). */
export interface ServedServer {
  start(listen: string): Promise<number>;
  setServing(serving: boolean): void;
  stop(): Promise<void>;
}

/**
 * Starts a gRPC service: `setUp` acquires what it needs through `onStop` and returns its server, which is bound to
 * `listen` (default `[services.<name>] LISTEN`) and only then reported serving. A failed start releases what was
 * acquired so far and rethrows.
 */
export async function startGrpcService(
  options: ServiceStartOptions,
  spec: GrpcServiceSpec,
  setUp: (setUp: GrpcServiceSetUp) => Promise<ServedServer>,
): Promise<RunningService> {
  const { config, logger } = options;
  const db = await openDatabase({
    url: config.database.url,
    schema: spec.schema,
    logger,
    maxConnections: config.database.maxOpenConns,
    migrationsDir: spec.migrationsDir,
  });
  const releases: (() => Promise<void> | void)[] = [() => db.close()];
  const releaseAll = async (): Promise<void> => {
    for (const release of [...releases].reverse()) await release();
  };
  try {
    const server = await setUp({ db, onStop: (release) => void releases.push(release) });
    await options.beforeListen?.();
    const port = await server.start(options.listen ?? config.services[spec.name].listen);
    server.setServing(true);
    let stopping: Promise<void> | undefined;
    const stop = (): Promise<void> => (stopping ??= server.stop().then(releaseAll));
    return { name: spec.name, port, stop };
  } catch (error) {
    await releaseAll();
    throw error;
  }
}
