/**
 * UserService: thin handlers that check a request with domain rules, read or write the store, and record
 * the event in the same transaction.
 */
import type { AsyncServiceOf } from '@cairn/rpc';
import { CairnError } from '@cairn/rpc';
import type { UserServiceService } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { assertValidEmail } from '../domain/email';
import { emailUsed, invalidCredentials, nameNotFound, notAUser, userExists, userNotFound } from '../domain/errors';
import { assertPasswordLength, burnPasswordCheck, hashPassword, verifyPassword } from '../domain/password';
import { planRename } from '../domain/rename';
import {
  accountKey,
  addressKey,
  keysToRead,
  pairCounter,
  refusedFor,
  signInThrottled,
  successToRecord,
  throttleCounters,
} from '../domain/sign-in-throttle';
import {
  BY_NAME,
  containsPattern,
  emailMatchScope,
  listedVisibilities,
  pageWindow,
  parseUserOrder,
  parseVisibilityFilter,
  pseudoUserFor,
} from '../domain/user-search';
import { planUserUpdate, type UserEdits } from '../domain/user-update';
import { userForViewer } from '../domain/user-view';
import { assertUsableUsername } from '../domain/username';
import { parseVisibility } from '../domain/visibility';
import { userListScope, viewerFromActor } from '../domain/visibility-rules';
import { enqueueUserCreated, enqueueUserDeleted, enqueueUserRenamed, enqueueUserUpdated } from '../events/outbox';
import { findRedirect, recordRedirect, releaseName } from '../store/redirects';
import { readCounters, recordFailure, recordSuccess } from '../store/sign-in-failures';
import { searchUsers } from '../store/user-search';
import {
  deleteUser,
  findActiveUsersByEmails,
  findConflicts,
  findUserById,
  findUserByName,
  findUserForSignIn,
  findUsersByIds,
  insertUser,
  lockUser,
  recordLogin,
  renameUser,
  toUser,
  updateUser,
  type UserRow,
} from '../store/users';
import { isAccountVisible } from './account-visibility';
import type { AccountsContext } from './context';
import { guard } from './guard';
import { lastOwnedOrgIds, releaseFromOrgs } from './membership-changes';
import { assertOwnsNoRepositories, deleteOwnerRepositories } from './owner-repositories';

/** Set ids as the store wants them: a filter only when positive (0 and negatives mean "any", as in Gitea). */
function positive(value: number): number | undefined {
  return value > 0 ? value : undefined;
}

/** The individual user DeleteUser acts on: NOT_FOUND when none, INVALID_ARGUMENT for an organization. */
function userToDelete(row: UserRow | null, id: number): UserRow {
  if (row === null) throw userNotFound(id, '');
  if (row.type !== 0) throw notAUser(row.name);
  return row;
}

export function createUserService({ db, settings, repos, passwordChecks }: AccountsContext): AsyncServiceOf<typeof UserServiceService> {
  const { noReplyAddress } = settings;
  return {
    async createUser(request) {
      const { username: name, email } = request;
      assertUsableUsername(name);
      assertValidEmail(email);
      // Accounts of an external login source may have no local password.
      if (request.sourceId === 0) assertPasswordLength(request.password, settings.minPasswordLength);
      const visibility = parseVisibility(request.visibility, settings.defaultUserVisibility);
      const passwordHash = request.password === '' ? '' : await hashPassword(request.password);
      return guard(
        () =>
          db.pool.transaction(async (tx) => {
            const conflicts = await findConflicts(tx, { name, email });
            if (conflicts.nameTaken) throw userExists(name);
            if (conflicts.emailTaken) throw emailUsed(email);
            await releaseName(tx, name);
            const user = toUser(
              await insertUser(tx, {
                name,
                email,
                passwordHash,
                fullName: request.fullName,
                loginName: request.loginName,
                sourceId: request.sourceId,
                mustChangePassword: request.mustChangePassword,
                restricted: request.restricted,
                visibility,
                isAdmin: request.isAdmin,
                allowCreateOrganization: settings.defaultAllowCreateOrganization,
                emailNotificationsPreference: settings.defaultEmailNotifications,
                createdAt: request.createdAt,
              }),
            );
            await enqueueUserCreated(tx, user, request.actorId);
            return { user };
          }),
        { name, email },
      );
    },

    async getUser(request) {
      const viewer = viewerFromActor(request.viewer);
      return guard(async () => {
        let row: UserRow | null;
        let notFound: () => CairnError;
        if (request.id !== undefined) {
          const id = request.id;
          row = await findUserById(db.pool, id);
          notFound = () => userNotFound(id, '');
        } else if (request.username !== undefined) {
          const name = request.username;
          row = await findUserByName(db.pool, name);
          notFound = () => userNotFound(0, name);
        } else {
          throw CairnError.invalid('user id or username is required');
        }
        // An account the viewer may not see is answered exactly as one that does not exist.
        if (row === null || !(await isAccountVisible(db.pool, viewer, row))) throw notFound();
        return { user: userForViewer(toUser(row), viewer, noReplyAddress) };
      });
    },

    async batchGetUsers(request) {
      const viewer = viewerFromActor(request.viewer);
      const ids = [...new Set(request.ids)];
      return guard(async () => ({
        users: (await findUsersByIds(db.pool, ids)).map((row) => userForViewer(toUser(row), viewer, noReplyAddress)),
      }));
    },

    async batchGetUsersByEmail(request) {
      const viewer = viewerFromActor(request.viewer);
      return guard(async () => {
        const owners = new Map((await findActiveUsersByEmails(db.pool, request.emails)).map((row) => [row.email.toLowerCase(), row]));
        // Each address as asked (a commit may spell it in another case), once.
        const users = [...new Set(request.emails)].flatMap((email) => {
          const row = owners.get(email.toLowerCase());
          return row === undefined ? [] : [{ email, user: userForViewer(toUser(row), viewer, noReplyAddress) }];
        });
        return { users };
      });
    },

    async searchUsers(request) {
      const viewer = viewerFromActor(request.viewer);
      const pseudo = pseudoUserFor(request.uid);
      if (pseudo !== undefined) return { users: [userForViewer(pseudo, viewer, noReplyAddress)], total: 1 };
      return guard(async () => {
        const { rows, total } = await searchUsers(db.pool, {
          scope: userListScope(viewer),
          pattern: containsPattern(request.keyword),
          emailScope: emailMatchScope(viewer),
          id: positive(request.uid),
          visibilities: request.publicOnly ? ['public'] : undefined,
          order: BY_NAME,
          window: pageWindow(request.page),
        });
        return { users: rows.map((row) => userForViewer(toUser(row), viewer, noReplyAddress)), total };
      });
    },

    async listUsers(request) {
      const viewer = viewerFromActor(request.viewer);
      const order = parseUserOrder(request.sort, request.order);
      const visibility = parseVisibilityFilter(request.visibility);
      return guard(async () => {
        const { rows, total } = await searchUsers(db.pool, {
          scope: userListScope(viewer),
          pattern: containsPattern(request.keyword),
          emailScope: emailMatchScope(viewer),
          visibilities: listedVisibilities(visibility, request.publicOnly === true),
          isActive: request.isActive,
          isAdmin: request.isAdmin,
          isRestricted: request.isRestricted,
          isProhibitLogin: request.isProhibitLogin,
          isTwoFactorEnabled: request.isTwoFactorEnabled,
          sourceId: positive(request.sourceId),
          loginName: request.loginName === '' ? undefined : request.loginName,
          order,
          window: pageWindow(request.page),
        });
        return { users: rows.map((row) => userForViewer(toUser(row), viewer, noReplyAddress)), total };
      });
    },

    async renameUser(request) {
      const { id, newName, actorId } = request;
      return guard(
        () =>
          db.pool.transaction(async (tx) => {
            const current = await lockUser(tx, id);
            if (current === null) throw userNotFound(id, '');
            if (current.type !== 0) throw notAUser(current.name);
            const kind = planRename(current.name, newName);
            if (kind === 'unchanged') return { user: toUser(current) };
            if (kind === 'rename') {
              if ((await findConflicts(tx, { name: newName, exceptId: id })).nameTaken) throw userExists(newName);
              await recordRedirect(tx, id, current.name, newName);
            }
            const renamed = await renameUser(tx, id, newName);
            const user = toUser(renamed);
            await enqueueUserRenamed(tx, user, { oldLogin: current.name, version: renamed.version }, actorId);
            return { user };
          }),
        { name: newName },
      );
    },

    async resolveName(request) {
      const { name } = request;
      const viewer = viewerFromActor(request.viewer);
      return guard(async () => {
        let row = await findUserByName(db.pool, name);
        let redirect = false;
        if (row === null) {
          const id = await findRedirect(db.pool, name);
          row = id === null ? null : await findUserById(db.pool, id);
          redirect = row !== null;
        }
        if (row === null || !(await isAccountVisible(db.pool, viewer, row))) throw nameNotFound(name);
        return { id: row.id, type: row.type, name: row.name, redirect, visibility: row.visibility };
      });
    },

    async updateUser(request) {
      const { id, actorId, password, ...fields } = request;
      const edits: UserEdits = fields;
      // As Gitea's EditUser: an empty password leaves the password as it is.
      const newPassword = password === undefined || password === '' ? undefined : password;
      if (newPassword !== undefined) assertPasswordLength(newPassword, settings.minPasswordLength);
      const passwordHash = newPassword === undefined ? undefined : await hashPassword(newPassword);
      return guard(
        () =>
          db.pool.transaction(async (tx) => {
            const current = await lockUser(tx, id);
            if (current === null) throw userNotFound(id, '');
            const plan = planUserUpdate(toUser(current), edits);
            const changed = passwordHash === undefined ? plan.changed : [...plan.changed, 'password'];
            if (changed.length === 0) return { user: toUser(current) };
            if (plan.changes.email !== undefined) {
              const conflicts = await findConflicts(tx, { email: plan.changes.email, exceptId: id });
              if (conflicts.emailTaken) throw emailUsed(plan.changes.email);
            }
            const updated = await updateUser(tx, id, plan.changes, passwordHash);
            const user = toUser(updated);
            await enqueueUserUpdated(tx, user, changed, updated.version, actorId);
            return { user };
          }),
        { email: edits.email },
      );
    },

    async deleteUser(request) {
      const { id, actorId, purge } = request;
      return guard(async () => {
        // Checked before a purge deletes anything: an unknown id or an organization loses nothing.
        userToDelete(await findUserById(db.pool, id), id);
        if (purge) {
          // Gitea's purge: the user's repositories, then those of the organizations deleted with them below.
          await deleteOwnerRepositories(repos, id, actorId);
          for (const orgId of await lastOwnedOrgIds(db.pool, id)) await deleteOwnerRepositories(repos, orgId, actorId);
        }
        await assertOwnsNoRepositories(repos, id);
        return db.pool.transaction(async (tx) => {
          const current = userToDelete(await lockUser(tx, id), id);
          // Organizations never lose their last owner this way (membership-changes.ts).
          await releaseFromOrgs(tx, current.id, purge, actorId);
          await deleteUser(tx, current.id);
          await enqueueUserDeleted(tx, { id: current.id, login: current.name, purge, created: current.created_at }, actorId);
          return {};
        });
      });
    },

    async authenticatePassword(request, ctx) {
      const login = request.login.trim();
      const throttle = settings.signInThrottle;
      return guard(async () => {
        const row = login === '' ? null : await findUserForSignIn(db.pool, login);
        const account = accountKey(row?.id, login);
        const address = addressKey(request.clientAddress);
        const counters = throttleCounters(account, address, throttle);
        const pair = pairCounter(account, address, throttle);
        // Before hashing: a refused attempt costs no scrypt, and a right password does not get through a block.
        const readings = await readCounters(db.pool, keysToRead(counters, pair));
        const refused = refusedFor(readings, account, pair, throttle);
        if (refused !== undefined) throw signInThrottled(refused);
        const matches = await passwordChecks.run(async () => {
          if (row !== null) return verifyPassword(request.password, row.password_hash);
          await burnPasswordCheck(request.password);
          return false;
        }, ctx.signal);
        if (row === null || !matches) {
          await recordFailure(db.pool, counters, throttle);
          throw invalidCredentials();
        }
        if (pair !== undefined && successToRecord(readings, pair, throttle)) await recordSuccess(db.pool, pair, throttle);
        // Inactive or prohibited accounts still authenticate: the gateway decides what they may do.
        return { user: toUser(await recordLogin(db.pool, row.id)) };
      });
    },
  };
}
