/**
 * UserService: thin handlers that check a request with domain rules, read or write the store, and record
 * the event in the same transaction.
 */
import type { AsyncServiceOf } from '@cairn/rpc';
import { CairnError } from '@cairn/rpc';
import type { UserServiceService } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import { assertValidEmail } from '../domain/email';
import { emailUsed, invalidCredentials, userExists, userNotFound } from '../domain/errors';
import { assertPasswordLength, burnPasswordCheck, hashPassword, verifyPassword } from '../domain/password';
import { planUserUpdate, type UserEdits } from '../domain/user-update';
import { assertUsableUsername } from '../domain/username';
import { parseVisibility } from '../domain/visibility';
import { enqueueUserCreated, enqueueUserDeleted, enqueueUserUpdated } from '../events/outbox';
import {
  deleteUser,
  findConflicts,
  findUserById,
  findUserByName,
  findUserForSignIn,
  findUsersByIds,
  insertUser,
  lockUser,
  recordLogin,
  toUser,
  updateUser,
} from '../store/users';
import type { AccountsContext } from './context';
import { guard } from './guard';

export function createUserService({ db, settings }: AccountsContext): AsyncServiceOf<typeof UserServiceService> {
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
      return guard(async () => {
        if (request.id !== undefined) {
          const row = await findUserById(db.pool, request.id);
          if (row === null) throw userNotFound(request.id, '');
          return { user: toUser(row) };
        }
        if (request.username !== undefined) {
          const row = await findUserByName(db.pool, request.username);
          if (row === null) throw userNotFound(0, request.username);
          return { user: toUser(row) };
        }
        throw CairnError.invalid('user id or username is required');
      });
    },

    async batchGetUsers(request) {
      const ids = [...new Set(request.ids)];
      return guard(async () => ({ users: (await findUsersByIds(db.pool, ids)).map(toUser) }));
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
            const user = toUser(await updateUser(tx, id, plan.changes, passwordHash));
            await enqueueUserUpdated(tx, user, changed, actorId);
            return { user };
          }),
        { email: edits.email },
      );
    },

    async deleteUser(request) {
      return guard(() =>
        db.pool.transaction(async (tx) => {
          const deleted = await deleteUser(tx, request.id);
          if (deleted === null) throw userNotFound(request.id, '');
          await enqueueUserDeleted(tx, { id: deleted.id, login: deleted.name, purge: request.purge }, request.actorId);
          return {};
        }),
      );
    },

    async authenticatePassword(request) {
      const login = request.login.trim();
      return guard(async () => {
        const row = login === '' ? null : await findUserForSignIn(db.pool, login);
        if (row === null) {
          await burnPasswordCheck(request.password);
          throw invalidCredentials();
        }
        if (!(await verifyPassword(request.password, row.password_hash))) throw invalidCredentials();
        // Inactive or prohibited accounts still authenticate: the gateway decides what they may do.
        return { user: toUser(await recordLogin(db.pool, row.id)) };
      });
    },
  };
}
