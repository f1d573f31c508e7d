/**
 * The notifications service's mail and accounts wiring: the accounts clients, and — while `[mailer] ENABLED` — the
 * mail sender over the configured transport. With the mailer off nothing is started and `wake` does nothing (the
 * consumers queue no jobs then).
 */
import type { CairnConfig } from '@cairn/config';
import type { Database } from '@cairn/db';
import type { Logger } from '@cairn/log';
import { UserServiceService } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { TeamServiceService } from '@cairn/proto/cairn/accounts/v1/orgs_service';
import { createRpcClient } from '@cairn/rpc';
import { type AccountsClients, usersById } from '../accounts/transfer-candidates';
import { startMailSender } from './sender';
import { createMailTransport } from './transports';

export interface MailWiring {
  accounts: AccountsClients;
  mailEnabled: boolean;
  /** Wakes the sender after a commit that queued mail. */
  wake(): void;
  stop(): Promise<void>;
}

export function startMail(options: { db: Database; config: CairnConfig; logger: Logger }): MailWiring {
  const { db, config, logger } = options;
  const target = { target: config.services.accounts.addr, service: 'accounts', caller: 'notifications', logger, deadlineMs: config.rpc.deadlineMs } as const;
  const users = createRpcClient(UserServiceService, target);
  const teams = createRpcClient(TeamServiceService, target);
  const accounts: AccountsClients = { users, teams };
  const closeClients = () => {
    users.close();
    teams.close();
  };
  if (!config.mailer.enabled) return { accounts, mailEnabled: false, wake() {}, stop: async () => closeClients() };
  const sender = startMailSender({
    db,
    logger,
    settings: config.mailer,
    site: { appName: config.appName, rootUrl: config.server.rootUrl, subjectPrefix: config.mailer.subjectPrefix },
    transport: createMailTransport(config.mailer),
    users: { batchGetUsers: (ids) => usersById(accounts, ids) },
  });
  logger.info({ protocol: config.mailer.protocol }, 'mail service enabled');
  return {
    accounts,
    mailEnabled: true,
    wake: () => sender.wake(),
    async stop() {
      await sender.stop();
      closeClients();
    },
  };
}
