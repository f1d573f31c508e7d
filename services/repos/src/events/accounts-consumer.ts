/**
 * The `repos-accounts` consumer: keeps the owner facts on repository rows current (names, visibility), drops the
 * team links of deleted teams, and deletes the repositories of deleted users and organizations with their git
 * data. Each event is applied once: its id is recorded in the transaction of the effect (`processOnce`), and the
 * message is acknowledged only after that commit. Like Gitea, accounts refuses to delete an owner of repositories (it
 * asks CountOwnerRepositories, and a purge deletes them through DeleteRepository first), so a deleted owner normally
 * has none left; a repository created between that question and the deletion (two services, no shared transaction)
 * is deleted here, so none outlives its owner.
 *
 * Names and visibility are copies of accounts' state, and accounts' events can arrive out of order (several relays,
 * redeliveries): each carries the account's version, and a copy is written only when its event is at least as new
 * as the last one applied for that owner and fact (`claimVersion`), so an older event never undoes a newer one.
 */
import { type Bus, type BusHandler, type Subscription, claimVersion, decodeEvent, processOnce } from '@cairn/bus';
import { sql, type DatabaseTransactionConnection } from '@cairn/db';
import { OrgDeleted, OrgRenamed, OrgUpdated, TeamDeleted, UserDeleted, UserRenamed, UserUpdated } from '@cairn/proto/cairn/accounts/v1/events';
import type { EventMeta } from '@cairn/proto/cairn/common/v1/common';
import { asVisibility } from '../rpc/accounts-lookup';
import type { ReposContext } from '../rpc/context';
import { removeRepository } from '../rpc/delete-repository';
import { renameOwner, repositoriesOwnedBy, setOwnerVisibility } from '../store/repositories';
import { unlinkDeletedTeam } from '../store/team-repos';
import { deleteTransfersTo } from '../store/transfers';
import { ACCOUNTS_CONSUMER, ACCOUNTS_FILTER, ACCOUNTS_STREAM, AccountsSubject } from './subjects';

type Effect = (tx: DatabaseTransactionConnection) => Promise<void>;

/** `effect`, unless an event with a newer `version` of the owner's `fact` was applied already. */
function ifNewest(consumer: string, ownerId: number, fact: 'name' | 'visibility', version: number, effect: Effect): Effect {
  return async (tx) => {
    if (await claimVersion(tx, { consumer, key: `owner:${ownerId}:${fact}`, version })) await effect(tx);
  };
}

/** Deletes every repository of a deleted owner (their git data goes after the commit), and what the owner had elsewhere. */
async function forgetOwner(tx: DatabaseTransactionConnection, ownerId: number, actorId: number): Promise<void> {
  for (const repo of await repositoriesOwnedBy(tx, ownerId)) await removeRepository(tx, repo, actorId);
  await tx.query(sql.unsafe`DELETE FROM collaborations WHERE user_id = ${ownerId}`);
  await tx.query(sql.unsafe`DELETE FROM team_repos WHERE org_id = ${ownerId}`);
  await deleteTransfersTo(tx, ownerId);
}

/** The event's id and effect, or undefined for subjects this consumer does not act on. */
function effectOf(consumer: string, subject: string, data: Uint8Array): { meta: EventMeta | undefined; effect: Effect } | undefined {
  switch (subject) {
    case AccountsSubject.userRenamed: {
      const { meta, user, version } = decodeEvent(UserRenamed, data);
      if (user === undefined) return undefined;
      return { meta, effect: ifNewest(consumer, user.id, 'name', version, (tx) => renameOwner(tx, user.id, user.login)) };
    }
    case AccountsSubject.orgRenamed: {
      const { meta, orgId, newName, version } = decodeEvent(OrgRenamed, data);
      return { meta, effect: ifNewest(consumer, orgId, 'name', version, (tx) => renameOwner(tx, orgId, newName)) };
    }
    case AccountsSubject.userUpdated: {
      const { meta, user, version } = decodeEvent(UserUpdated, data);
      if (user === undefined) return undefined;
      return { meta, effect: ifNewest(consumer, user.id, 'visibility', version, (tx) => setOwnerVisibility(tx, user.id, asVisibility(user.visibility))) };
    }
    case AccountsSubject.orgUpdated: {
      const { meta, org, version } = decodeEvent(OrgUpdated, data);
      if (org === undefined) return undefined;
      return { meta, effect: ifNewest(consumer, org.id, 'visibility', version, (tx) => setOwnerVisibility(tx, org.id, asVisibility(org.visibility))) };
    }
    case AccountsSubject.teamDeleted: {
      const event = decodeEvent(TeamDeleted, data);
      return { meta: event.meta, effect: (tx) => unlinkDeletedTeam(tx, event.teamId) };
    }
    case AccountsSubject.userDeleted: {
      const event = decodeEvent(UserDeleted, data);
      return { meta: event.meta, effect: (tx) => forgetOwner(tx, event.userId, event.meta?.actorId ?? 0) };
    }
    case AccountsSubject.orgDeleted: {
      const event = decodeEvent(OrgDeleted, data);
      return { meta: event.meta, effect: (tx) => forgetOwner(tx, event.orgId, event.meta?.actorId ?? 0) };
    }
    default:
      return undefined;
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Handles one accounts event. One that can never be applied (undecodable, no event id) is logged and acknowledged:
 * redelivering it would change nothing. A database or git-storage failure throws, so the bus redelivers it.
 */
export function accountsEventHandler(context: ReposContext, consumer: string = ACCOUNTS_CONSUMER): BusHandler {
  return async (message) => {
    let found: ReturnType<typeof effectOf>;
    try {
      found = effectOf(consumer, message.subject, message.data);
    } catch (error) {
      context.logger.error({ err: error, subject: message.subject, event_id: message.id }, 'dropping an unreadable accounts event');
      return;
    }
    if (found === undefined) return;
    const eventId = found.meta?.eventId ?? '';
    if (!UUID.test(eventId)) {
      context.logger.error({ subject: message.subject, event_id: message.id }, 'dropping an accounts event without an event id');
      return;
    }
    await processOnce(context.db, consumer, eventId, found.effect);
  };
}

export interface AccountsConsumerOptions {
  bus: Bus;
  /** Stream and durable name; tests give their own, production uses the defaults. */
  stream?: string;
  durable?: string;
}

export function startAccountsConsumer(context: ReposContext, options: AccountsConsumerOptions): Promise<Subscription> {
  const durable = options.durable ?? ACCOUNTS_CONSUMER;
  return options.bus.consume({
    stream: options.stream ?? ACCOUNTS_STREAM,
    durable,
    filterSubject: ACCOUNTS_FILTER,
    handler: accountsEventHandler(context, durable),
  });
}
