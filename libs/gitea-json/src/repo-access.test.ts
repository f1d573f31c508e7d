import { accessAtLeast } from './repo-access';

describe('accessAtLeast', () => {
  it('orders none < read < write < admin < owner, unknown and missing as none', () => {
    expect(accessAtLeast('owner', 'admin')).toBe(true);
    expect(accessAtLeast('write', 'write')).toBe(true);
    expect(accessAtLeast('read', 'write')).toBe(false);
    expect(accessAtLeast('none', 'read')).toBe(false);
    expect(accessAtLeast(undefined, 'read')).toBe(false);
    expect(accessAtLeast('bogus', 'read')).toBe(false);
  });
});
