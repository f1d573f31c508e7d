/** Reading the organization and team routes' path and paging parameters. */
import type { PageRequest } from '@cairn/proto/cairn/common/v1/common';
import { pathInt64 } from '../../api/path-int';
import type { ApiContext, NamedAccount } from '../../api/types';

/** The account a `{username}` or `{org}` parameter names, as the pipeline resolved it. */
export function accountOf<B>(ctx: ApiContext<B>, param: 'username' | 'org'): NamedAccount {
  const account = ctx.accounts[param];
  if (account === undefined) throw new Error(`route reached without its {${param}} account: the route path lacks it`);
  return account;
}

/** `page` and `limit` as accounts' page request. */
export function pageOf<B>(ctx: ApiContext<B>): PageRequest {
  const { page, limit } = ctx.listOptions();
  return { page, limit };
}

/** The `{id}` of a team route; anything but a positive integer names no team (Gitea reads it as 0). */
export function teamIdOf<B>(ctx: ApiContext<B>): number {
  return pathInt64(ctx.params.id);
}
