/**
 * `npm start`: the whole system under one supervisor. The database is the configured one or the embedded
 * PostgreSQL; with the in-process bus every service runs in this process (each on its own loopback gRPC
 * port, so calls take the production path), with `[bus] URL` each service is its own child process,
 * restarted if it crashes. Ready when `GET /api/v1/version` answers 200; stop() shuts down in order:
 * gateway, services, bus, database. With `[metrics] ENABLED`, the single process serves one `/metrics`
 * at `[metrics] LISTEN` for all its services, and each child process serves its own on a free loopback
 * port; the runtime file records each service's `metricsUrl`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openConfiguredBus, type Bus } from '@cairn/bus';
import { GRPC_SERVICES, type CairnConfig, type GrpcServiceName, loadConfig, serviceEnvOverrides } from '@cairn/config';
import { createLogger, type Logger } from '@cairn/log';
import { METRICS_PATH, startMetricsServer } from '@cairn/metrics';
import { ensureKeys, installKeyring, loadKeyring } from '@cairn/rpc';
import { waitForReady } from '@cairn/rpc';
import { start as startAccounts } from '@cairn/accounts';
import { start as startGateway } from '@cairn/gateway';
import { start as startGitStorage } from '@cairn/git-storage';
import { start as startNotifications } from '@cairn/notifications';
import { start as startHooks } from '@cairn/hooks';
import { start as startMigrations } from '@cairn/migrations';
import { start as startRepos } from '@cairn/repos';
import { start as startIssues } from '@cairn/issues';
import { start as startSocial } from '@cairn/social';
import { ChildService } from './child-service';
import { withoutPassword } from './redact';
import { startEmbeddedPostgres } from './embedded-postgres';
import { assertPortFree, isSameProcessAlive, processCommandLine, processIdentity, reserveLoopbackPort, terminateProcess, type PortReservation } from './processes';
import { StartAbortedError, abortable, localHttpUrl, throwIfAborted, waitForHttpOk } from './readiness';
import { readRuntimeFile, removeRuntimeFile, writeRuntimeFile, type RuntimeInfo } from './runtime-file';
import { describeHolder, tryAcquireWorkDirLock, type WorkDirLock } from './work-dir-lock';

export interface SupervisorOptions {
  /** Environment to read the configuration from; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Directory relative paths (CAIRN_WORK_DIR) resolve against; default process.cwd(). */
  cwd?: string;
  /** Supervisor log; default a pino logger at `[log] LEVEL`. */
  logger?: Logger;
  /** Aborting it interrupts start-up (a stop request during start): start rejects with StartAbortedError. */
  signal?: AbortSignal;
  /** How long services may take to become ready; default 60 s. */
  readyTimeoutMs?: number;
}

export interface RunningSupervisor {
  /** Where the HTTP API answers on this machine, e.g. http://127.0.0.1:3000 */
  httpUrl: string;
  runtime: RuntimeInfo;
  /** Ordered, clean shutdown; safe to call more than once. */
  stop(): Promise<void>;
}

/** How a gRPC service package runs inside a process (each one's `start`). */
type StartGrpcService = (options: { config: CairnConfig; logger: Logger; bus: Bus; listen?: string; beforeListen?: () => Promise<void> }) => Promise<{ port: number; stop(): Promise<void> }>;

/** Every gRPC service of the configuration, by name: a new service is one line here and one in @cairn/config. */
const GRPC_SERVICE_STARTS: Readonly<Record<GrpcServiceName, StartGrpcService>> = {
  accounts: startAccounts,
  'git-storage': startGitStorage,
  repos: startRepos,
  issues: startIssues,
  social: startSocial,
  notifications: startNotifications,
  hooks: startHooks,
  migrations: startMigrations,
};

/** Services in start order: the gRPC services, then the gateway, which is stopped first. */
const CHILD_SERVICES = [...GRPC_SERVICES, 'gateway'] as const;
/** How long a child gets to finish its work after SIGTERM. */
const CHILD_GRACE_MS = 15_000;
/** How long to wait for a `cairn admin` command that holds the work dir. */
const LOCK_WAIT_MS = 60_000;

type Cleanup = { what: string; run: () => Promise<void> | void };

export async function startSupervisor(options: SupervisorOptions = {}): Promise<RunningSupervisor> {
  let env: NodeJS.ProcessEnv = { ...(options.env ?? process.env) };
  const cwd = options.cwd ?? process.cwd();
  let { config, warnings } = loadConfig({ env, cwd });
  const logger = options.logger ?? createLogger({ service: 'supervisor', level: config.log.level });
  for (const warning of warnings) logger.warn(warning);

  const cleanups: Cleanup[] = [];
  // HTTP_PORT=0 (tests): pick the port now, so ROOT_URL's default and every child agree on it, and hold it until
  // the gateway binds it.
  let httpPort: PortReservation | undefined;
  if (config.server.httpPort === 0) {
    const reservation = await reserveLoopbackPort();
    cleanups.push({ what: 'the HTTP port held for the gateway', run: () => reservation.release() });
    httpPort = reservation;
    env = { ...env, ...serviceEnvOverrides({ server: { HTTP_PORT: String(reservation.port) } }) };
    ({ config } = loadConfig({ env, cwd }));
  }

  const runCleanups = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      try {
        await cleanup.run();
      } catch (error) {
        logger.error({ err: error }, `stopping ${cleanup.what} failed`);
      }
    }
  };

  try {
    const lock = await acquireLock(config.workDir, logger, options.signal);
    cleanups.push({ what: 'the work dir lock', run: () => lock.release() });
    await stopOrphanedChildren(config.workDir, logger);
    cleanups.push({ what: 'the runtime file', run: () => removeRuntimeFile(config.workDir, process.pid) });

    // The services' identity keys (docs/security.md): made once per work dir, read by every process it runs.
    const createdKeys = ensureKeys(config.rpc.keysDir);
    if (createdKeys.length > 0) logger.info({ dir: config.rpc.keysDir, identities: createdKeys }, 'service identity keys created');
    installKeyring(loadKeyring(config.rpc.keysDir));

    // A taken HTTP port would otherwise show only as a gateway that never gets ready.
    if (httpPort === undefined) await assertPortFree(config.server.httpAddr, config.server.httpPort, '[server] HTTP_ADDR:HTTP_PORT');

    let databaseUrl = config.database.url;
    if (databaseUrl === '') {
      throwIfAborted(options.signal);
      const embedded = await startEmbeddedPostgres({ workDir: config.workDir, logger });
      cleanups.push({ what: 'the embedded PostgreSQL', run: () => embedded.stop() });
      databaseUrl = embedded.url;
    }
    const resolved: CairnConfig = { ...config, database: { ...config.database, url: databaseUrl } };
    const httpUrl = localHttpUrl(config.server.httpAddr, config.server.httpPort);

    const runtime: RuntimeInfo = {
      supervisor: processIdentity(),
      state: 'starting',
      workDir: config.workDir,
      httpUrl,
      rootUrl: config.server.rootUrl,
      databaseUrl,
      embeddedDatabase: config.database.url === '',
      busUrl: config.bus.url,
      mode: config.bus.url === '' ? 'single-process' : 'processes',
      services: {},
      startedAt: new Date().toISOString(),
    };
    const saveRuntime = () => writeRuntimeFile(config.workDir, runtime);
    const readyTimeoutMs = options.readyTimeoutMs ?? 60_000;
    throwIfAborted(options.signal);

    if (runtime.mode === 'single-process') {
      await startInThisProcess(resolved, runtime, { logger, options, cleanups, saveRuntime, httpPort });
    } else {
      await startChildProcesses(resolved, runtime, { env, cwd, logger, options, cleanups, saveRuntime, httpPort, readyTimeoutMs });
    }
    saveRuntime();

    // /api/healthz, not /api/v1/version: it is 200 once the gateway and every gRPC service are ready, whatever the
    // settings, where /version answers anonymous callers 403 under [service] REQUIRE_SIGNIN_VIEW (as Gitea).
    await waitForHttpOk(`${httpUrl}/api/healthz`, { timeoutMs: readyTimeoutMs, signal: options.signal });
    runtime.state = 'ready';
    saveRuntime();
    logger.info({ url: httpUrl, root_url: config.server.rootUrl, mode: runtime.mode }, `cairn is ready at ${httpUrl}`);

    let stopping: Promise<void> | undefined;
    const stop = () =>
      (stopping ??= (async () => {
        logger.info('cairn is stopping');
        await runCleanups();
        logger.info('cairn stopped');
      })());
    return { httpUrl, runtime, stop };
  } catch (error) {
    await runCleanups();
    throw error;
  }
}

interface StartContext {
  logger: Logger;
  options: SupervisorOptions;
  cleanups: Cleanup[];
  saveRuntime: () => void;
  /** The HTTP port this process holds for the gateway (HTTP_PORT=0), released right before the gateway binds it. */
  httpPort: PortReservation | undefined;
}

/** Holds a loopback port until its server binds it; released with the cleanups if start-up fails first. */
async function holdPort(context: StartContext, what: string): Promise<PortReservation> {
  const reservation = await reserveLoopbackPort();
  context.cleanups.push({ what: `the port held for ${what}`, run: () => reservation.release() });
  return reservation;
}

function serviceLogger(context: StartContext, name: string, level: string): Logger {
  return context.options.logger ? context.options.logger.child({ component: name }) : createLogger({ service: name, level });
}

/** In-process bus: it reaches only this process, so every service runs here, each on its own loopback gRPC port. */
async function startInThisProcess(config: CairnConfig, runtime: RuntimeInfo, context: StartContext): Promise<void> {
  const { cleanups } = context;
  const level = config.log.level;
  let metricsUrl: string | undefined;
  if (config.metrics.enabled) {
    const metrics = await startMetricsServer({
      listen: config.metrics.listen,
      token: config.metrics.token,
      logger: serviceLogger(context, 'metrics', level),
    });
    cleanups.push({ what: 'the metrics server', run: () => metrics.stop() });
    metricsUrl = metrics.url;
  }
  const bus: Bus = await openConfiguredBus(config.bus, { databaseUrl: config.database.url, logger: serviceLogger(context, 'bus', level) }).catch((error: unknown) => {
    throw new Error(`cannot open the database ${withoutPassword(config.database.url)}: ${error instanceof Error ? error.message : String(error)}`);
  });
  cleanups.push({ what: 'the bus', run: () => bus.close() });
  throwIfAborted(context.options.signal);

  // Each gRPC service on a loopback port of its own, all chosen before any starts: every service (and the gateway)
  // gets every address, so services may call each other whatever their start order (accounts and repos do;
  // clients connect on their first call).
  // Each port stays held until its service binds it, so an instance starting side by side cannot pick it meanwhile.
  const endpoints = { ...config.services };
  const held = new Map<string, PortReservation>();
  for (const name of GRPC_SERVICES) {
    const reservation = await holdPort(context, name);
    held.set(name, reservation);
    const addr = `127.0.0.1:${reservation.port}`;
    endpoints[name] = { listen: addr, addr };
  }
  const servicesConfig: CairnConfig = { ...config, services: endpoints };
  for (const name of GRPC_SERVICES) {
    const { addr } = endpoints[name];
    const service = await GRPC_SERVICE_STARTS[name]({
      config: servicesConfig,
      logger: serviceLogger(context, name, level),
      bus,
      listen: addr,
      beforeListen: held.get(name)?.release,
    });
    cleanups.push({ what: name, run: () => service.stop() });
    runtime.services[name] = { addr, port: service.port, metricsUrl };
    throwIfAborted(context.options.signal);
  }

  const gateway = await startGateway({ config: servicesConfig, logger: serviceLogger(context, 'gateway', level), bus, beforeListen: context.httpPort?.release });
  cleanups.push({ what: 'the gateway', run: () => gateway.stop() });
  runtime.services.gateway = { port: gateway.port, metricsUrl };
}

/** `[bus] URL` set: each service is its own process, as in production, on ports chosen here. */
async function startChildProcesses(
  config: CairnConfig,
  runtime: RuntimeInfo,
  context: StartContext & { env: NodeJS.ProcessEnv; cwd: string; readyTimeoutMs: number },
): Promise<void> {
  const { logger, cleanups, saveRuntime } = context;
  const grpcAddrs = new Map<string, string>();
  // Held until the child that binds it is spawned (the gateway's HTTP port too).
  const held = new Map<string, PortReservation[]>();
  if (context.httpPort !== undefined) held.set('gateway', [context.httpPort]);
  const endpoints: Record<string, Record<string, string>> = {};
  for (const name of GRPC_SERVICES) {
    const reservation = await holdPort(context, name);
    held.set(name, [reservation]);
    const { port } = reservation;
    const addr = `127.0.0.1:${port}`;
    grpcAddrs.set(name, addr);
    endpoints[`services.${name}`] = { LISTEN: addr, ADDR: addr };
    runtime.services[name] = { addr, port };
  }
  const env: NodeJS.ProcessEnv = {
    ...context.env,
    // Absolute, so children agree with the supervisor whatever their working directory.
    CAIRN_WORK_DIR: config.workDir,
    CAIRN_CONFIG: config.configPath,
    ...serviceEnvOverrides({
      database: { URL: config.database.url },
      ...endpoints,
      server: { HTTP_PORT: String(config.server.httpPort) },
    }),
  };
  runtime.services.gateway = { port: config.server.httpPort };

  for (const name of CHILD_SERVICES) {
    throwIfAborted(context.options.signal);
    const script = serviceMainScript(name);
    // One metrics server per process: each child gets a loopback port of its own.
    let childEnv = env;
    if (config.metrics.enabled) {
      const reservation = await holdPort(context, `${name}'s metrics`);
      held.set(name, [...(held.get(name) ?? []), reservation]);
      const metricsAddr = `127.0.0.1:${reservation.port}`;
      childEnv = { ...env, ...serviceEnvOverrides({ metrics: { LISTEN: metricsAddr } }) };
      runtime.services[name] = { ...runtime.services[name], metricsUrl: `http://${metricsAddr}${METRICS_PATH}` };
    }
    const child = new ChildService({
      name,
      script,
      env: childEnv,
      cwd: context.cwd,
      logger,
      onSpawn: (identity) => {
        runtime.services[name] = { ...runtime.services[name], process: identity };
        if (runtime.state === 'ready') saveRuntime();
      },
    });
    await Promise.all((held.get(name) ?? []).map((reservation) => reservation.release()));
    child.start();
    cleanups.push({ what: name, run: () => child.stop(CHILD_GRACE_MS) });
    saveRuntime();
    // The next service (the gateway last) may call it: start it only once this one serves.
    const addr = grpcAddrs.get(name);
    if (addr !== undefined) await abortable(waitForReady(addr, { timeoutMs: context.readyTimeoutMs }), context.options.signal);
  }
}

/** `services/<name>/dist/main.js`, found through the package (its main is dist/index.js). */
function serviceMainScript(name: (typeof CHILD_SERVICES)[number]): string {
  const script = path.join(path.dirname(require.resolve(`@cairn/${name}`)), 'main.js');
  if (!fs.existsSync(script)) throw new Error(`${script} is missing: build the project first (npm run build)`);
  return script;
}

async function acquireLock(workDir: string, logger: Logger, signal: AbortSignal | undefined): Promise<WorkDirLock> {
  const giveUpAt = Date.now() + LOCK_WAIT_MS;
  let announced = false;
  for (;;) {
    const attempt = tryAcquireWorkDirLock(workDir, 'supervisor');
    if ('lock' in attempt) return attempt.lock;
    const holder = attempt.heldBy;
    if (holder.role === 'supervisor') {
      throw new Error(`${describeHolder(holder)} already uses the work dir ${workDir}; stop it first or choose another CAIRN_WORK_DIR`);
    }
    // A `cairn admin …` command works on the database directly for a few seconds: wait for it.
    if (Date.now() >= giveUpAt) throw new Error(`${describeHolder(holder)} still holds the work dir ${workDir}`);
    if (!announced) logger.info({ holder_pid: holder.pid }, `waiting for ${describeHolder(holder)} to finish with the work dir`);
    announced = true;
    throwIfAborted(signal);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * After the supervisor was killed, its children (own process groups) may still run and hold their ports.
 * The stale runtime file names them; each one that is still the same process and still runs a Cairn
 * service is stopped.
 */
async function stopOrphanedChildren(workDir: string, logger: Logger): Promise<void> {
  const stale = readRuntimeFile(workDir);
  if (stale === undefined || isSameProcessAlive(stale.supervisor)) return;
  for (const [name, service] of Object.entries(stale.services)) {
    const child = service.process;
    if (child === undefined || !isSameProcessAlive(child)) continue;
    const argv = processCommandLine(child.pid) ?? [];
    if (!argv.some((arg) => arg.endsWith(path.join('services', name, 'dist', 'main.js')))) continue;
    logger.warn({ child: name, child_pid: child.pid }, `stopping ${name} left running by a previous supervisor`);
    await terminateProcess(child.pid, [
      ['SIGTERM', CHILD_GRACE_MS],
      ['SIGKILL', 5_000],
    ]);
  }
}

export { StartAbortedError };
