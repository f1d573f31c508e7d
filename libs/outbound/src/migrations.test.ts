/** The `[migrations]` policy as Gitea's migrations.IsMigrateURLAllowed decides (gitea-facts §1.4). */
import { OutboundRefusedError, type Resolver } from './guard';
import { checkRemoteHost, migrationPolicy } from './migrations';

const names: Record<string, string[]> = {
  'github.com': ['140.82.121.4'],
  'git.internal': ['10.1.2.3'],
  'localhost': ['127.0.0.1'],
  'mixed.example': ['140.82.121.4', '10.1.2.3'],
};
const resolver: Resolver = async (host) => {
  const found = names[host];
  if (found === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return found.map((address) => ({ address, family: 4 }));
};
const settings = { allowedDomains: [] as string[], blockedDomains: [] as string[], allowLocalnetworks: false };

async function verdict(host: string, overrides: Partial<typeof settings> = {}): Promise<'allowed' | 'refused'> {
  try {
    await checkRemoteHost(migrationPolicy({ ...settings, ...overrides }), host, resolver);
    return 'allowed';
  } catch (error) {
    if (error instanceof OutboundRefusedError) return 'refused';
    throw error;
  }
}

describe('migrationPolicy / checkRemoteHost', () => {
  it('allows external addresses by default and refuses loopback and private ones', async () => {
    expect(await verdict('github.com')).toBe('allowed');
    expect(await verdict('localhost')).toBe('refused');
    expect(await verdict('127.0.0.1')).toBe('refused');
    expect(await verdict('git.internal')).toBe('refused');
    expect(await verdict('[::1]')).toBe('refused');
    expect(await verdict('[::1]', { allowLocalnetworks: true })).toBe('allowed');
  });

  it('ALLOW_LOCALNETWORKS adds private and loopback', async () => {
    expect(await verdict('localhost', { allowLocalnetworks: true })).toBe('allowed');
    expect(await verdict('git.internal', { allowLocalnetworks: true })).toBe('allowed');
  });

  it('a name that does not resolve is allowed only by a name pattern (Gitea: no IP, not external)', async () => {
    expect(await verdict('nowhere.example')).toBe('refused');
    expect(await verdict('nowhere.example', { allowedDomains: ['*.example'] })).toBe('allowed');
  });

  it('ALLOWED_DOMAINS replaces `external`, matched case-insensitively against the name', async () => {
    expect(await verdict('GitHub.COM', { allowedDomains: ['github.com'] })).toBe('allowed');
    expect(await verdict('mixed.example', { allowedDomains: ['github.com'] })).toBe('refused');
    // A named host skips the local-network rule (Gitea's TODO in hostmatcher).
    expect(await verdict('git.internal', { allowedDomains: ['git.internal'] })).toBe('allowed');
  });

  it('BLOCKED_DOMAINS wins, by name or by any address', async () => {
    expect(await verdict('github.com', { blockedDomains: ['github.com'] })).toBe('refused');
    expect(await verdict('github.com', { blockedDomains: ['*.com'], allowedDomains: ['github.com'] })).toBe('refused');
    expect(await verdict('mixed.example', { blockedDomains: ['10.1.2.3'], allowLocalnetworks: true })).toBe('refused');
  });
});
