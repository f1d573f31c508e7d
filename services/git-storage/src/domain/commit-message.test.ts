import { commitMessage } from './commit-message';

const CID = { name: 'Cid', email: 'cid@example.com', when: undefined, timezone: '' };

describe('commitMessage', () => {
  it('trims and ends with a newline', () => {
    expect(commitMessage('  Fix it \n\n', undefined)).toBe('Fix it\n');
    expect(commitMessage('', undefined)).toBe('\n');
  });

  it('adds the sign-off trailer once', () => {
    expect(commitMessage('Fix it', CID)).toBe('Fix it\n\nSigned-off-by: Cid <cid@example.com>\n');
    expect(commitMessage('Fix it\n\nSigned-off-by: Cid <cid@example.com>', CID)).toBe('Fix it\n\nSigned-off-by: Cid <cid@example.com>\n');
    expect(commitMessage('', CID)).toBe('Signed-off-by: Cid <cid@example.com>\n');
  });
});
