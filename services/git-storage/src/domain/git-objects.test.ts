import { parseCommit, parseSignature, parseTagObject, toTag } from './git-objects';

const TREE = 'a'.repeat(40);
const PARENT = 'b'.repeat(40);

describe('parseSignature', () => {
  it('reads name, e-mail, time and zone', () => {
    expect(parseSignature('Ann Author <ann@example.com> 1700000000 -0730')).toEqual({
      name: 'Ann Author',
      email: 'ann@example.com',
      when: new Date(1_700_000_000_000),
      timezone: '-0730',
    });
  });

  it('tolerates identities old tools broke', () => {
    expect(parseSignature('nobody')).toEqual({ name: 'nobody', email: '', when: undefined, timezone: '' });
    expect(parseSignature('X <> 12 junk')).toEqual({ name: 'X', email: '', when: new Date(12_000), timezone: '+0000' });
  });
});

describe('parseCommit', () => {
  it('keeps the message byte for byte and lists every parent', () => {
    const raw = `tree ${TREE}\nparent ${PARENT}\nparent ${TREE}\nauthor A <a@e> 1 +0000\ncommitter C <c@e> 2 +0100\n\nsubject\n\n  body  \n\n`;
    const commit = parseCommit('c'.repeat(40), Buffer.from(raw));
    expect(commit).toMatchObject({ treeSha: TREE, parentShas: [PARENT, TREE], message: 'subject\n\n  body  \n\n', signature: '', signedPayload: '' });
    expect(commit.committer).toMatchObject({ name: 'C', timezone: '+0100' });
  });

  it('splits the gpgsig header off into the signature and the signed payload', () => {
    const head = `tree ${TREE}\nauthor A <a@e> 1 +0000\ncommitter C <c@e> 2 +0000\nencoding ISO-8859-1\n`;
    const raw = `tree ${TREE}\nauthor A <a@e> 1 +0000\ncommitter C <c@e> 2 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n abc\n -----END PGP SIGNATURE-----\nencoding ISO-8859-1\n\nmsg\n`;
    const commit = parseCommit('c'.repeat(40), Buffer.from(raw));
    expect(commit.signature).toBe('-----BEGIN PGP SIGNATURE-----\n\nabc\n-----END PGP SIGNATURE-----\n');
    expect(commit.signedPayload).toBe(`${head}\nmsg\n`);
    expect(commit.message).toBe('msg\n');
  });
});

describe('parseTagObject', () => {
  it('reads the target, tagger and message without its signature', () => {
    const raw = `object ${PARENT}\ntype commit\ntag v1\ntagger T <t@e> 5 +0200\n\nRelease\n\nnotes\n-----BEGIN PGP SIGNATURE-----\nxyz\n-----END PGP SIGNATURE-----\n`;
    const tag = parseTagObject(Buffer.from(raw));
    expect(tag).toEqual({ object: PARENT, message: 'Release\n\nnotes\n', tagger: { name: 'T', email: 't@e', when: new Date(5000), timezone: '+0200' } });
    expect(toTag('v1', 'd'.repeat(40), undefined, tag)).toMatchObject({ annotated: true, message: 'Release\n\nnotes\n' });
    expect(toTag('v1', PARENT, undefined, undefined)).toMatchObject({ annotated: false, message: '', tagger: undefined });
  });
});
