/**
 * Which of the owner's e-mail addresses a GPG key vouches for (Gitea's `parseGPGKey`): an address of an active
 * account that an identity of the key names, compared trimmed and case-insensitively.
 */

export interface KeyOwner {
  email: string;
  /** Gitea counts only activated addresses; an account's address is activated with the account. */
  isActive: boolean;
}

/** The owner's addresses, as the owner spells them, that appear among `identityEmails`. */
export function ownerAddressesAmong(owner: KeyOwner, identityEmails: readonly string[]): string[] {
  if (!owner.isActive || owner.email === '') return [];
  const address = owner.email.toLowerCase();
  return identityEmails.some((email) => email.trim().toLowerCase() === address) ? [owner.email] : [];
}
