import { CairnError } from '@cairn/rpc';
import { GIT_PROTOCOL_REFUSED, LOCAL_PATH_REFUSED, parseCloneAddress } from './clone-address';

function refusal(address: string): { reason: string | undefined; message: string } {
  try {
    parseCloneAddress(address, '', '');
  } catch (error) {
    if (error instanceof CairnError) return { reason: error.reason, message: error.message };
    throw error;
  }
  throw new Error(`${address} was taken`);
}

describe('parseCloneAddress', () => {
  it.each(['/srv/git/repo.git', 'repo', 'file:///srv/git/repo.git', 'C:\\repos\\x', '../up.git'])('refuses the local path %s as Gitea', (address) => {
    expect(refusal(address)).toEqual({ reason: 'local_path', message: LOCAL_PATH_REFUSED });
  });

  it('refuses git:// with its own message and other schemes as bad URLs', () => {
    expect(refusal('git://example.com/a.git')).toEqual({ reason: 'bad_url', message: GIT_PROTOCOL_REFUSED });
    expect(refusal('ssh://git@example.com/a.git').reason).toBe('bad_url');
    expect(refusal('https://exa mple.com/a.git').reason).toBe('bad_url');
  });

  it('takes the credentials out of the address, the form\'s winning over the address\'s', () => {
    expect(parseCloneAddress('https://alice:s3cret@Example.COM:8443/o/r.git', '', '')).toEqual({
      url: 'https://example.com:8443/o/r.git',
      host: 'example.com',
      username: 'alice',
      password: 's3cret',
    });
    expect(parseCloneAddress('https://alice:s3cret@example.com/o/r.git', 'bob', 'pw')).toMatchObject({
      url: 'https://example.com/o/r.git',
      username: 'bob',
      password: 'pw',
    });
    expect(parseCloneAddress('http://127.0.0.1:3000/o/r', '', '')).toEqual({ url: 'http://127.0.0.1:3000/o/r', host: '127.0.0.1', username: '', password: '' });
  });

  it('never puts a credential in its error message', () => {
    expect(refusal('https://alice:s3cret@exa mple.com/a.git').message).not.toContain('s3cret');
  });
});
