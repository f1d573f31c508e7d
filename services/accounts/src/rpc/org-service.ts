/**
 * OrgService: organizations and their membership. Each handler loads what the request names with the viewer's
 * standing, asks domain/org-access.ts what the viewer may do, then reads or writes the store and records the
 * event in the same transaction.
 */
import type { DatabaseTransactionConnection } from '@cairn/db';
import type { AsyncServiceOf } from '@cairn/rpc';
import { CairnError } from '@cairn/rpc';
import { IsMemberResponse_Answer, type OrgServiceService } from '@cairn/proto/cairn/accounts/v1/orgs_service';
import { nameNotFound, userExists } from '../domain/errors';
import { canCreateOrganization, decideOrgAction, memberListScope, membershipQuestion, orgPermissions } from '../domain/org-access';
import { createOrgDenied, enforce, orgNotFound } from '../domain/org-errors';
import { planOrgUpdate } from '../domain/org-update';
import { planRename } from '../domain/rename';
import { AccessMode, allUnitsAt } from '../domain/team-units';
import { pageWindow } from '../domain/user-search';
import { userForViewer } from '../domain/user-view';
import { assertUsableUsername } from '../domain/username';
import { parseVisibility } from '../domain/visibility';
import { isSignedIn, orgListScope, userOrgsScope, viewerFromActor, type Viewer } from '../domain/visibility-rules';
import { enqueueOrgCreated, enqueueOrgDeleted, enqueueOrgMemberUpdated, enqueueOrgRenamed, enqueueOrgUpdated } from '../events/org-outbox';
import { addOrgUser, addTeamUser, findMembership, listMembers, orgStanding, setMembershipPublic, teamReach } from '../store/members';
import {
  deleteOrg,
  findOrgById,
  findOrgByName,
  insertOrg,
  listOrgs,
  listUserOrgs,
  lockOrg,
  toOrganization,
  toOrganizationRecord,
  updateOrg,
  type OrgRow,
} from '../store/orgs';
import { recordRedirect, releaseName } from '../store/redirects';
import { OWNERS_TEAM_NAME, insertTeam } from '../store/teams';
import { findConflicts, findUserByName, lockUser, renameUser, toUser } from '../store/users';
import { isAccountVisible } from './account-visibility';
import type { AccountsContext } from './context';
import { guard } from './guard';
import { leaveOrg } from './membership-changes';
import { findIndividual, loadOrg, type OrgInView } from './org-lookup';
import { assertOwnsNoRepositories } from './owner-repositories';

/** The organization of that name, locked for a change, with the viewer's standing. */
async function lockOrgByName(tx: DatabaseTransactionConnection, viewer: Viewer, name: string): Promise<OrgInView> {
  const found = await findOrgByName(tx, name);
  const org = found === null ? null : await lockOrg(tx, found.id);
  if (org === null) throw orgNotFound(0, name);
  return { org, standing: { visibility: org.visibility, ...(await orgStanding(tx, org.id, viewer.id)) } };
}

export function createOrgService({ db, settings, repos }: AccountsContext): AsyncServiceOf<typeof OrgServiceService> {
  const { noReplyAddress } = settings;

  /** The organization the viewer asked for, when they may see it. */
  async function visibleOrg(viewer: Viewer, name: string): Promise<OrgInView> {
    const found = await loadOrg(db.pool, viewer, name);
    enforce(decideOrgAction(viewer, 'view', found.standing), () => orgNotFound(0, name));
    return found;
  }

  return {
    async createOrg(request) {
      const viewer = viewerFromActor(request.actor);
      const { name, email } = request;
      return guard(
        () =>
          db.pool.transaction(async (tx) => {
            const ownerId = request.ownerId > 0 ? request.ownerId : viewer.id;
            // Only site admins create organizations for someone else.
            if (!isSignedIn(viewer) || (ownerId !== viewer.id && !viewer.isAdmin)) throw createOrgDenied();
            const owner = await lockUser(tx, ownerId);
            if (owner === null || owner.type !== 0 || !canCreateOrganization({ isAdmin: owner.is_admin, allowCreateOrganization: owner.allow_create_organization })) {
              throw createOrgDenied();
            }
            assertUsableUsername(name);
            const visibility = parseVisibility(request.visibility, settings.defaultOrgVisibility);
            if ((await findConflicts(tx, { name })).nameTaken) throw userExists(name);
            await releaseName(tx, name);
            const org = await insertOrg(tx, {
              name,
              fullName: request.fullName,
              email,
              description: request.description,
              website: request.website,
              location: request.location,
              visibility,
              repoAdminChangeTeamAccess: request.repoAdminChangeTeamAccess,
            });
            const owners = await insertTeam(tx, {
              orgId: org.id,
              name: OWNERS_TEAM_NAME,
              description: '',
              access: { accessMode: AccessMode.Owner, units: allUnitsAt(AccessMode.Owner) },
              includesAllRepositories: true,
              canCreateOrgRepo: true,
            });
            await addOrgUser(tx, org.id, owner.id, settings.defaultOrgMemberVisible);
            await addTeamUser(tx, owners, owner.id);
            await enqueueOrgCreated(tx, toOrganizationRecord(org), owner.id, owners.id, viewer.id);
            return { org: toOrganization(org, viewer) };
          }),
        { name, email },
      );
    },

    async getOrg(request) {
      const viewer = viewerFromActor(request.viewer);
      return guard(async () => {
        let org: OrgRow | null;
        if (request.id !== undefined) org = await findOrgById(db.pool, request.id);
        else if (request.name !== undefined) org = await findOrgByName(db.pool, request.name);
        else throw CairnError.invalid('organization id or name is required');
        const notFound = () => orgNotFound(request.id ?? 0, request.name ?? '');
        if (org === null) throw notFound();
        const standing = { visibility: org.visibility, ...(await orgStanding(db.pool, org.id, viewer.id)) };
        enforce(decideOrgAction(viewer, 'view', standing), notFound);
        return { org: toOrganization(org, viewer) };
      });
    },

    async listOrgs(request) {
      const viewer = viewerFromActor(request.viewer);
      return guard(async () => {
        const { rows, total } = await listOrgs(db.pool, orgListScope(viewer, request.publicOnly), pageWindow(request.page));
        return { orgs: rows.map((row) => toOrganization(row, viewer)), total };
      });
    },

    async listUserOrgs(request) {
      const viewer = viewerFromActor(request.viewer);
      const { username } = request;
      return guard(async () => {
        const user = await findUserByName(db.pool, username);
        if (user === null || !(await isAccountVisible(db.pool, viewer, user))) throw nameNotFound(username);
        const { rows, total } = await listUserOrgs(db.pool, user.id, userOrgsScope(viewer, user.id, request.publicOnly), pageWindow(request.page));
        return { orgs: rows.map((row) => toOrganization(row, viewer)), total };
      });
    },

    async updateOrg(request) {
      const viewer = viewerFromActor(request.actor);
      const { actor: _actor, org: name, ...edits } = request;
      return guard(
        () =>
          db.pool.transaction(async (tx) => {
            const { org, standing } = await lockOrgByName(tx, viewer, name);
            enforce(decideOrgAction(viewer, 'manage', standing), () => orgNotFound(0, name));
            const current = toOrganizationRecord(org);
            const plan = planOrgUpdate(current, edits);
            if (plan.changed.length === 0) return { org: toOrganization(org, viewer) };
            const updated = await updateOrg(tx, org.id, plan.changes);
            await enqueueOrgUpdated(tx, toOrganizationRecord(updated), plan.changed, updated.version, viewer.id);
            return { org: toOrganization(updated, viewer) };
          }),
        { email: edits.email },
      );
    },

    async deleteOrg(request) {
      const viewer = viewerFromActor(request.actor);
      return guard(() =>
        db.pool.transaction(async (tx) => {
          const { org, standing } = await lockOrgByName(tx, viewer, request.org);
          enforce(decideOrgAction(viewer, 'manage', standing), () => orgNotFound(0, request.org));
          // After the permission check: only those who may delete the organization learn it has repositories.
          await assertOwnsNoRepositories(repos, org.id);
          await deleteOrg(tx, org.id);
          await enqueueOrgDeleted(tx, { id: org.id, name: org.name }, viewer.id);
          return {};
        }),
      );
    },

    async renameOrg(request) {
      const viewer = viewerFromActor(request.actor);
      const { newName } = request;
      return guard(
        () =>
          db.pool.transaction(async (tx) => {
            const { org, standing } = await lockOrgByName(tx, viewer, request.org);
            enforce(decideOrgAction(viewer, 'manage', standing), () => orgNotFound(0, request.org));
            const kind = planRename(org.name, newName);
            if (kind === 'unchanged') return { org: toOrganization(org, viewer) };
            if (kind === 'rename') {
              if ((await findConflicts(tx, { name: newName, exceptId: org.id })).nameTaken) throw userExists(newName);
              await recordRedirect(tx, org.id, org.name, newName);
            }
            const { version } = await renameUser(tx, org.id, newName);
            await enqueueOrgRenamed(tx, { id: org.id, oldName: org.name, newName, version }, viewer.id);
            const renamed = await findOrgById(tx, org.id);
            if (renamed === null) throw orgNotFound(org.id, newName);
            return { org: toOrganization(renamed, viewer) };
          }),
        { name: newName },
      );
    },

    async listMembers(request) {
      const viewer = viewerFromActor(request.viewer);
      return guard(async () => {
        const { org, standing } = await visibleOrg(viewer, request.org);
        const scope = memberListScope(viewer, standing, request.publicOnly, request.publicUsersOnly);
        const { rows, total } = await listMembers(db.pool, org.id, scope, viewer.id, pageWindow(request.page));
        return { users: rows.map((row) => userForViewer(toUser(row), viewer, noReplyAddress)), total };
      });
    },

    async isMember(request) {
      const viewer = viewerFromActor(request.viewer);
      return guard(async () => {
        const { org, standing } = await visibleOrg(viewer, request.org);
        const user = await findIndividual(db.pool, request.username);
        const membership = await findMembership(db.pool, org.id, user.id);
        const answer = (member: boolean) => ({
          answer: member ? IsMemberResponse_Answer.ANSWER_MEMBER : IsMemberResponse_Answer.ANSWER_NOT_MEMBER,
          username: user.name,
        });
        if (request.publicOnly) return answer(membership?.is_public ?? false);
        switch (membershipQuestion(viewer, standing, user.id === viewer.id)) {
          case 'full':
            return answer(membership !== null);
          case 'not_member':
            return answer(false);
          case 'public_only':
            return { answer: IsMemberResponse_Answer.ANSWER_ASK_PUBLIC, username: user.name };
        }
      });
    },

    async removeMember(request) {
      const viewer = viewerFromActor(request.actor);
      return guard(() =>
        db.pool.transaction(async (tx) => {
          const { org, standing } = await lockOrgByName(tx, viewer, request.org);
          enforce(decideOrgAction(viewer, 'manage', standing), () => orgNotFound(0, request.org));
          const user = await findIndividual(tx, request.username);
          await leaveOrg(tx, org.id, user.id, viewer.id);
          return {};
        }),
      );
    },

    async setMemberPublic(request) {
      const viewer = viewerFromActor(request.actor);
      return guard(() =>
        db.pool.transaction(async (tx) => {
          const { org, standing } = await lockOrgByName(tx, viewer, request.org);
          const user = await findIndividual(tx, request.username);
          const action = request.public ? 'publicize_member' : 'conceal_member';
          enforce(decideOrgAction(viewer, action, standing, user.id === viewer.id), () => orgNotFound(0, request.org));
          // Gitea answers success for a user who is not a member too; nothing changes then.
          if (await setMembershipPublic(tx, org.id, user.id, request.public)) {
            await enqueueOrgMemberUpdated(tx, { orgId: org.id, userId: user.id, isPublic: request.public }, viewer.id);
          }
          return {};
        }),
      );
    },

    async getOrgPermissions(request) {
      const viewer = viewerFromActor(request.viewer);
      return guard(async () => {
        const user = await findUserByName(db.pool, request.username);
        if (user === null || !(await isAccountVisible(db.pool, viewer, user))) throw nameNotFound(request.username);
        const { org } = await visibleOrg(viewer, request.org);
        // Nor may the answer reveal an organization the user cannot see (Gitea checks only this one).
        const target: Viewer = { id: user.id, isAdmin: user.is_admin, isRestricted: user.restricted };
        const targetStanding = { visibility: org.visibility, ...(await orgStanding(db.pool, org.id, user.id)) };
        enforce(decideOrgAction(target, 'view', targetStanding), () => orgNotFound(0, request.org));
        const reach = await teamReach(db.pool, org.id, user.id);
        return orgPermissions(reach.maxMode as AccessMode, reach.createsRepos);
      });
    },
  };
}
