import { uuidFromName } from './uuid-from-name';
import { isUuid } from './uuidv7';

describe('uuidFromName', () => {
  it('is a version 8 UUID that depends only on the name', () => {
    const id = uuidFromName('cairn.git.pushed:1:1');
    expect(isUuid(id)).toBe(true);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(uuidFromName('cairn.git.pushed:1:1')).toBe(id);
    expect(uuidFromName('cairn.git.pushed:1:2')).not.toBe(id);
  });

  it('is the first 128 bits of SHA-256 with the version and variant set (RFC 9562 Appendix B.2)', () => {
    // sha256('') = e3b0c442 98fc 1c14 9afb f4c8996fb92427ae41e4649b934ca495991b7852b855
    expect(uuidFromName('')).toBe('e3b0c442-98fc-8c14-9afb-f4c8996fb924');
  });
});
