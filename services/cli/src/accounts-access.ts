/**
 * How the CLI reaches the accounts service. If a Cairn instance runs on the work dir (its runtime file
 * names a live supervisor), the command goes to that instance's accounts over gRPC. Otherwise the CLI
 * takes the work dir's lock, opens the database (the configured one, or the embedded PostgreSQL it starts
 * itself) and runs accounts in this process for the one command — so the same validation, hashing and
 * `user.created` event (through the outbox) apply either way.
 */
import { start as startAccounts, type RunningService } from '@cairn/accounts';
import { openConfiguredBus, type Bus } from '@cairn/bus';
import type { CairnConfig } from '@cairn/config';
import type { Logger } from '@cairn/log';
import { UserServiceService } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { createRpcClient, ensureKeys, installKeyring, loadKeyring, type RpcClient } from '@cairn/rpc';
import {
  describeHolder,
  readLiveRuntimeFile,
  startEmbeddedPostgres,
  tryAcquireWorkDirLock,
  type LockHolder,
  type RunningEmbeddedPostgres,
  type WorkDirLock,
  withoutPassword,
} from '@cairn/supervisor';
import { CommandFailedError } from './errors';

export type UserServiceClient = RpcClient<typeof UserServiceService>;

export interface AccountsAccessOptions {
  config: CairnConfig;
  logger: Logger;
  /** One-line progress notes for the person at the terminal (stderr). */
  notice: (line: string) => void;
  /** How long to wait for an instance that is starting or another command that holds the work dir. */
  waitMs?: number;
}

/** Runs `work` with a UserService client, on the running instance or on a temporary in-process accounts. */
export async function withUserService<T>(options: AccountsAccessOptions, work: (client: UserServiceClient) => Promise<T>): Promise<T> {
  const { config, logger } = options;
  const target = await findTarget(options);
  if (target.kind === 'instance') {
    logger.debug({ addr: target.addr }, 'using the running instance');
    return useClient(target.addr, config, logger, work);
  }
  return withLocalAccounts(config, logger, target.lock, (addr) => useClient(addr, config, logger, work));
}

type Target = { kind: 'instance'; addr: string } | { kind: 'local'; lock: WorkDirLock };

async function findTarget(options: AccountsAccessOptions): Promise<Target> {
  const { workDir } = options.config;
  const giveUpAt = Date.now() + (options.waitMs ?? 60_000);
  let waitingFor: string | undefined;
  for (;;) {
    const runtime = readLiveRuntimeFile(workDir);
    const addr = runtime?.services.accounts?.addr;
    if (runtime?.state === 'ready' && addr !== undefined) return { kind: 'instance', addr };
    let holder: LockHolder | undefined;
    if (runtime === undefined) {
      const attempt = tryAcquireWorkDirLock(workDir, 'cli');
      if ('lock' in attempt) return { kind: 'local', lock: attempt.lock };
      holder = attempt.heldBy;
    }
    // An instance is starting, or another command works on the database: wait for either to finish.
    const what = holder === undefined ? `cairn (pid ${runtime?.supervisor.pid}) to be ready` : `${describeHolder(holder)} to finish`;
    if (Date.now() >= giveUpAt) throw new CommandFailedError(`gave up waiting for ${what} on the work dir ${workDir}`);
    if (waitingFor !== what) options.notice(`waiting for ${what}…`);
    waitingFor = what;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function useClient<T>(addr: string, config: CairnConfig, logger: Logger, work: (client: UserServiceClient) => Promise<T>): Promise<T> {
  // The CLI calls as its own identity with the work dir's keys (docs/security.md).
  installKeyring(loadKeyring(config.rpc.keysDir));
  const client = createRpcClient(UserServiceService, { target: addr, service: 'accounts', caller: 'cli', logger, deadlineMs: config.rpc.deadlineMs });
  try {
    return await work(client);
  } finally {
    client.close();
  }
}

/**
 * Starts what one command needs and stops it afterwards, also when the command is interrupted (Ctrl-C),
 * so no database server is left running.
 */
async function withLocalAccounts<T>(config: CairnConfig, logger: Logger, lock: WorkDirLock, work: (addr: string) => Promise<T>): Promise<T> {
  ensureKeys(config.rpc.keysDir);
  let embedded: RunningEmbeddedPostgres | undefined;
  let bus: Bus | undefined;
  let accounts: RunningService | undefined;
  let cleaning: Promise<void> | undefined;
  const cleanUp = () =>
    (cleaning ??= (async () => {
      await accounts?.stop();
      await bus?.close();
      await embedded?.stop();
      lock.release();
    })());
  const onSignal = (signal: NodeJS.Signals) => {
    process.stderr.write(`cairn: ${signal} received, stopping\n`);
    void cleanUp().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    let databaseUrl = config.database.url;
    if (databaseUrl === '') {
      embedded = await startEmbeddedPostgres({ workDir: config.workDir, logger });
      databaseUrl = embedded.url;
    }
    // The bus the instance uses, so the user.created event reaches its consumers (NATS now, or the
    // in-process bus's tables, read when the instance next starts).
    const url = databaseUrl;
    const busProblem = config.bus.url !== '' ? `cannot reach NATS at ${config.bus.url}` : `cannot open the database ${withoutPassword(url)}`;
    const openedBus = await explained(busProblem, () => openConfiguredBus(config.bus, { databaseUrl: url, logger }));
    bus = openedBus;
    const serviceConfig = { ...config, database: { ...config.database, url } };
    accounts = await explained(`cannot start accounts on ${withoutPassword(url)}`, () =>
      startAccounts({ config: serviceConfig, logger, bus: openedBus, listen: '127.0.0.1:0' }),
    );
    return await work(`127.0.0.1:${accounts.port}`);
  } finally {
    await cleanUp();
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
}

/** Runs a set-up step; its failure becomes one line saying what could not be done and why. */
async function explained<T>(what: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    throw new CommandFailedError(`${what}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
