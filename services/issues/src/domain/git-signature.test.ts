import { identityText, userGitIdentity, withCoAuthorTrailers } from './git-signature';

const BOB = { name: 'Bob', email: 'bob@example.com' };
const ALICE = { name: 'Alice', email: 'alice@example.com' };

describe('userGitIdentity (NewGitSig)', () => {
  it('uses the full name, else the login, and the e-mail unless it is private or missing', () => {
    expect(userGitIdentity({ login: 'Bob', fullName: ' Bob B ', email: 'b@x', keepEmailPrivate: false }, 'noreply.example')).toEqual({ name: 'Bob B', email: 'b@x' });
    expect(userGitIdentity({ login: 'Bob', fullName: '', email: 'b@x', keepEmailPrivate: true }, 'noreply.example')).toEqual({ name: 'Bob', email: 'bob@noreply.example' });
    expect(userGitIdentity({ login: 'Bob', fullName: '', email: '', keepEmailPrivate: false }, 'noreply.example').email).toBe('bob@noreply.example');
    expect(userGitIdentity({ login: 'bob', fullName: '<Bob>\n', email: 'b@x', keepEmailPrivate: false }, 'n').name).toBe('Bob');
  });
});

describe('withCoAuthorTrailers (merge_squash.go)', () => {
  it('names the author as co-author and co-committer when the committer is someone else', () => {
    expect(identityText(BOB)).toBe('Bob <bob@example.com>');
    expect(withCoAuthorTrailers('Title (#1)', BOB, ALICE, true)).toBe('Title (#1)\nCo-authored-by: Bob <bob@example.com>\nCo-committed-by: Bob <bob@example.com>\n');
    expect(withCoAuthorTrailers('Title (#1)\n\nCo-authored-by: Bob <bob@example.com>', BOB, ALICE, true)).toBe(
      'Title (#1)\n\nCo-authored-by: Bob <bob@example.com>\nCo-committed-by: Bob <bob@example.com>\n',
    );
  });

  it('leaves the message alone when the author commits it or the trailers are off', () => {
    expect(withCoAuthorTrailers('Title (#1)', BOB, { ...BOB }, true)).toBe('Title (#1)');
    expect(withCoAuthorTrailers('Title (#1)', BOB, ALICE, false)).toBe('Title (#1)');
    // A different name with the same e-mail is another signature, as Gitea compares `Name <email>`.
    expect(withCoAuthorTrailers('T', BOB, { name: 'Bobby', email: BOB.email }, true)).toContain('Co-committed-by: Bob <bob@example.com>');
  });
});
