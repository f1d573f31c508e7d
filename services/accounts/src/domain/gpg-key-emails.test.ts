import { ownerAddressesAmong } from './gpg-key-emails';

describe('ownerAddressesAmong', () => {
  const owner = { email: 'Alice@Example.com', isActive: true };

  it('matches the owner address trimmed and in any case, answering it as the owner spells it', () => {
    expect(ownerAddressesAmong(owner, ['other@example.com', ' alice@EXAMPLE.com '])).toEqual(['Alice@Example.com']);
    expect(ownerAddressesAmong(owner, ['alice@example.com', 'ALICE@example.com'])).toEqual(['Alice@Example.com']);
  });

  it('matches nothing else, and nothing for an inactive account or one without an address', () => {
    expect(ownerAddressesAmong(owner, ['alice@example.org'])).toEqual([]);
    expect(ownerAddressesAmong({ ...owner, isActive: false }, ['alice@example.com'])).toEqual([]);
    expect(ownerAddressesAmong({ email: '', isActive: true }, [''])).toEqual([]);
  });
});
