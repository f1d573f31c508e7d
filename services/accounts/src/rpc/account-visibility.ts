/**
 * Whether a viewer may see one account: the rules of domain/visibility-rules.ts with the facts they need read
 * from the database, and only when the answer depends on them (a fact that cannot change the answer is not
 * queried).
 */
import type { CommonQueryMethods } from '@cairn/db';
import { canSeeOrg, canSeeUser, type Viewer } from '../domain/visibility-rules';
import type { Visibility } from '../domain/visibility';
import { isOrgMember, sharesOrganization } from '../store/visibility-facts';

export interface Account {
  id: number;
  /** 0: individual, 1: organization. */
  type: number;
  visibility: Visibility;
}

export async function isAccountVisible(db: CommonQueryMethods, viewer: Viewer, account: Account): Promise<boolean> {
  if (account.type === 1) {
    if (canSeeOrg(viewer, account, false)) return true;
    return canSeeOrg(viewer, account, true) && isOrgMember(db, account.id, viewer.id);
  }
  if (canSeeUser(viewer, account)) return true;
  return canSeeUser(viewer, account, { sharesOrg: true }) && sharesOrganization(db, viewer.id, account.id);
}
