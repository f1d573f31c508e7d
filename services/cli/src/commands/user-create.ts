/** `cairn admin user create`: a local account, usable at once (no forced password change unless asked). */
import { CreateUserRequest } from '@cairn/proto/cairn/accounts/v1/accounts_service';
import type { CommandSpec, FlagValues } from '../args';
import type { UserServiceClient } from '../accounts-access';
import { CommandFailedError } from '../errors';

export const userCreateCommand: CommandSpec = {
  path: ['admin', 'user', 'create'],
  summary: 'Creates a user account (the first administrator too), on the running instance or directly in the database.',
  flags: [
    { name: 'username', type: 'string', required: true, description: 'user name (login)' },
    { name: 'password', type: 'string', required: true, description: 'password' },
    { name: 'email', type: 'string', required: true, description: 'e-mail address' },
    { name: 'full-name', type: 'string', description: 'full name' },
    { name: 'admin', type: 'boolean', description: 'make the user a site administrator' },
    { name: 'restricted', type: 'boolean', description: 'make the user restricted (default: [service] DEFAULT_USER_IS_RESTRICTED)' },
    { name: 'must-change-password', type: 'boolean', description: 'require a password change at first sign-in' },
  ],
};

/** What a flag left out means: the instance's settings, as for users created through the API. */
export interface UserCreateDefaults {
  /** `[service] DEFAULT_USER_IS_RESTRICTED`. */
  restricted: boolean;
}

/**
 * Maps the parsed flags to the accounts request. Without `--restricted` (or `--restricted=false`) the user is
 * restricted as `[service] DEFAULT_USER_IS_RESTRICTED` says, as Gitea's CLI does (cmd/admin_user_create.go sets
 * IsRestricted only when the flag is given, and user creation applies the default otherwise).
 */
export function createUserRequest(values: FlagValues, defaults: UserCreateDefaults): CreateUserRequest {
  const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : '');
  const flag = (name: string) => values[name] === true;
  return CreateUserRequest.create({
    username: text('username'),
    password: text('password'),
    email: text('email'),
    fullName: text('full-name'),
    isAdmin: flag('admin'),
    restricted: typeof values.restricted === 'boolean' ? values.restricted : defaults.restricted,
    mustChangePassword: flag('must-change-password'),
  });
}

/** Creates the user and returns the line to print. */
export async function runUserCreate(client: UserServiceClient, values: FlagValues, defaults: UserCreateDefaults): Promise<string> {
  const { user } = await client.createUser(createUserRequest(values, defaults));
  if (user === undefined) throw new CommandFailedError('accounts answered without the created user');
  return `user "${user.login}" created (id ${user.id})`;
}
