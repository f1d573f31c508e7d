import spdxFull from 'spdx-license-list/full';
import { fillLicense } from './initial-files';
import { isLicenseFile, matchLicense, prepareLicense } from './license-match';

const templates = Object.entries(spdxFull).map(([id, { licenseText }]) => prepareLicense({ id, text: licenseText }));
const filled = (id: string) => fillLicense(spdxFull[id].licenseText, { owner: 'Alice Example', email: 'alice@example.com', repo: 'demo', year: '2026' });

describe('matchLicense', () => {
  it.each(['MIT', 'Apache-2.0', 'BSD-3-Clause', 'ISC', 'MPL-2.0', 'Unlicense', 'BSD-2-Clause'])('recognises %s as auto-init writes it', (id) => {
    expect(matchLicense(filled(id), templates)).toBe(id);
  });

  it('answers one id for identical texts: the -only one', () => {
    expect(matchLicense(filled('GPL-3.0-or-later'), templates)).toBe('GPL-3.0-only');
    expect(matchLicense(filled('LGPL-2.1'), templates)).toBe('LGPL-2.1-only');
  });

  it('survives reflowed lines, other quotes and a different copyright line', () => {
    const mit = filled('MIT').replace(/\n/g, ' ').replace(/"/g, '“').replace('Copyright (c) 2026 Alice Example', 'Copyright © 2019-2026 The Demo Authors');
    expect(matchLicense(mit, templates)).toBe('MIT');
  });

  it('finds nothing in text that is not a licence, or in nothing', () => {
    expect(matchLicense('# demo\n\nAll rights reserved. Ask before you copy anything.\n', templates)).toBeUndefined();
    expect(matchLicense('', templates)).toBeUndefined();
    // Half a licence is not that licence.
    const apache = filled('Apache-2.0');
    expect(matchLicense(apache.slice(0, apache.length / 3), templates)).toBeUndefined();
  });
});

describe('isLicenseFile', () => {
  it.each(['LICENSE', 'license', 'LICENSE.md', 'LICENCE.txt', 'COPYING', 'COPYING.LESSER', 'LICENSE-MIT', 'license_apache'])('%s is one', (name) => {
    expect(isLicenseFile(name)).toBe(true);
  });
  it.each(['README.md', 'license.go', 'licenses', 'MYLICENSE', 'LICENSE.json', 'src'])('%s is not', (name) => {
    expect(isLicenseFile(name)).toBe(false);
  });
});
