/** Gitea's organization and team request bodies (modules/structs/org.go, org_team.go), fields in struct order. */
import { go, goStruct, type GoStruct } from '@cairn/http';

/** The bound value of a body struct. */
export type BodyOf<S> = S extends GoStruct<infer T> ? T : never;

const VISIBILITIES = ['', 'public', 'limited', 'private'];

export const CreateOrgOption = goStruct('CreateOrgOption', {
  username: go.string('UserName', { required: true, username: true, maxSize: 40 }),
  full_name: go.string('FullName', { maxSize: 100 }),
  email: go.string('Email', { maxSize: 255 }),
  description: go.string('Description', { maxSize: 255 }),
  website: go.string('Website', { url: true, maxSize: 255 }),
  location: go.string('Location', { maxSize: 50 }),
  visibility: go.string('Visibility', { in: VISIBILITIES }),
  repo_admin_change_team_access: go.bool('RepoAdminChangeTeamAccess'),
});

export const EditOrgOption = goStruct('EditOrgOption', {
  full_name: go.stringPtr('FullName', { maxSize: 100 }),
  email: go.stringPtr('Email', { maxSize: 255 }),
  description: go.stringPtr('Description', { maxSize: 255 }),
  website: go.stringPtr('Website', { url: true, maxSize: 255 }),
  location: go.stringPtr('Location', { maxSize: 50 }),
  visibility: go.string('Visibility', { in: VISIBILITIES }),
  repo_admin_change_team_access: go.boolPtr('RepoAdminChangeTeamAccess'),
});

export const RenameOrgOption = goStruct('RenameOrgOption', {
  new_name: go.string('NewName', { required: true }),
});

export const CreateTeamOption = goStruct('CreateTeamOption', {
  name: go.string('Name', { required: true, alphaDashDot: true, maxSize: 255 }),
  description: go.string('Description', { maxSize: 255 }),
  includes_all_repositories: go.bool('IncludesAllRepositories'),
  permission: go.string('Permission'),
  units: go.stringSlice('Units'),
  units_map: go.stringMap('UnitsMap'),
  can_create_org_repo: go.bool('CanCreateOrgRepo'),
});

export const EditTeamOption = goStruct('EditTeamOption', {
  name: go.string('Name', { alphaDashDot: true, maxSize: 255 }),
  description: go.stringPtr('Description', { maxSize: 255 }),
  includes_all_repositories: go.boolPtr('IncludesAllRepositories'),
  permission: go.string('Permission'),
  units: go.stringSlice('Units'),
  units_map: go.stringMap('UnitsMap'),
  can_create_org_repo: go.boolPtr('CanCreateOrgRepo'),
});
