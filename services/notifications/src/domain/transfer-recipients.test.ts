import { teamMayAcceptTransfer, transferNotifiees } from './transfer-recipients';

it('lets owners and teams that may create repositories accept a transfer to their organization', () => {
  expect(teamMayAcceptTransfer({ id: 1, permission: 'owner', canCreateOrgRepo: false })).toBe(true);
  expect(teamMayAcceptTransfer({ id: 2, permission: 'write', canCreateOrgRepo: true })).toBe(true);
  expect(teamMayAcceptTransfer({ id: 3, permission: 'admin', canCreateOrgRepo: false })).toBe(false);
});

it('notifies each candidate once, never the doer', () => {
  expect(transferNotifiees([7, 3, 7, 5, 0], 5)).toEqual([3, 7]);
});
