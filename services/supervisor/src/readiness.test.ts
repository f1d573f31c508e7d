import { localHttpUrl } from './readiness';

describe('localHttpUrl', () => {
  it('dials loopback for wildcard binds and the address itself otherwise', () => {
    expect(localHttpUrl('0.0.0.0', 3000)).toBe('http://127.0.0.1:3000');
    expect(localHttpUrl('', 3000)).toBe('http://127.0.0.1:3000');
    expect(localHttpUrl('::', 3000)).toBe('http://127.0.0.1:3000');
    expect(localHttpUrl('10.1.2.3', 8080)).toBe('http://10.1.2.3:8080');
    expect(localHttpUrl('fd00::1', 8080)).toBe('http://[fd00::1]:8080');
  });
});
