import { allowedTypeEntries, forbiddenType } from './allowed-types';
import { safeContentType } from './download';
import { sniffContentType } from './sniff';

const bytes = (text: string) => Buffer.from(text, 'latin1');
const PNG = bytes('\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR');

describe('sniffContentType (Go http.DetectContentType, Gitea typesniffer)', () => {
  it.each([
    ['an empty file', '', 'text/plain; charset=utf-8'],
    ['text', 'hello\n', 'text/plain; charset=utf-8'],
    ['HTML after white space', '  <HTML><body>', 'text/html; charset=utf-8'],
    ['a tag prefix that is no HTML tag', '<Bogus>', 'text/plain; charset=utf-8'],
    ['XML', '<?xml version="1.0"?><a/>', 'text/xml; charset=utf-8'],
    ['SVG inside XML', '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>', 'image/svg+xml'],
    ['a PDF', '%PDF-1.7', 'application/pdf'],
    ['a zip', 'PK\x03\x04rest', 'application/zip'],
    ['binary', '\x00\x01\x02', 'application/octet-stream'],
  ])('%s', (_what, text, type) => {
    expect(sniffContentType(bytes(text))).toBe(type);
  });

  it('knows images', () => {
    expect(sniffContentType(PNG)).toBe('image/png');
    expect(sniffContentType(bytes('RIFF\x00\x00\x00\x00WEBPVP8 '))).toBe('image/webp');
  });
});

describe('forbiddenType (Gitea modules/upload Verify)', () => {
  it('reads comma and pipe separated entries without case or blanks', () => {
    expect(allowedTypeEntries(' .ZIP| image/* ,,')).toEqual(['.zip', 'image/*']);
  });

  it('allows everything without entries or with */*', () => {
    expect(forbiddenType(bytes('MZ'), 'tool.exe', '')).toBeUndefined();
    expect(forbiddenType(bytes('MZ'), 'tool.exe', '.zip,*/*')).toBeUndefined();
  });

  it('matches extensions on the name and MIME entries on the sniffed type, reporting the sniffed type', () => {
    expect(forbiddenType(bytes('text'), 'notes.TXT', '.txt')).toBeUndefined();
    expect(forbiddenType(PNG, 'picture.bin', 'image/*')).toBeUndefined();
    expect(forbiddenType(PNG, 'picture.bin', 'image/png')).toBeUndefined();
    expect(forbiddenType(bytes('text'), 'picture.png', 'image/*')).toBe('text/plain; charset=utf-8');
    expect(forbiddenType(bytes('\x00\x01'), 'tool.exe', '.zip')).toBe('application/octet-stream');
  });

  it('checks a rename by its name alone (no bytes sniff as text)', () => {
    expect(forbiddenType(new Uint8Array(), 'a.exe', '.zip')).toBe('text/plain; charset=utf-8');
    expect(forbiddenType(new Uint8Array(), 'a.zip', '.zip')).toBeUndefined();
  });
});

describe('safeContentType', () => {
  it('labels only what cannot run as a page', () => {
    expect(safeContentType('image/png')).toBe('image/png');
    expect(safeContentType('application/pdf')).toBe('application/pdf');
    expect(safeContentType('text/plain; charset=utf-8')).toBe('text/plain; charset=utf-8');
    expect(safeContentType('image/svg+xml')).toBe('application/octet-stream');
    expect(safeContentType('text/html; charset=utf-8')).toBe('application/octet-stream');
    expect(safeContentType('text/xml; charset=utf-8')).toBe('application/octet-stream');
  });
});
