import { FileDiffCollector, cutDiffAroundLine, diffHunkOf } from './diff-hunk';

const FILE = [
  'diff --git a/f.txt b/f.txt',
  'index 1111111..2222222 100644',
  '--- a/f.txt',
  '+++ b/f.txt',
  '@@ -1,3 +1,8 @@',
  ' one',
  '+two',
  '+three',
  '+four',
  '+five',
  '+six',
  ' seven',
  ' eight',
].join('\n');

const OTHER = ['diff --git a/g.txt b/g.txt', 'deleted file mode 100644', 'index 3333333..0000000', '--- a/g.txt', '+++ /dev/null', '@@ -1 +0,0 @@', '-gone'].join('\n');

describe('cutDiffAroundLine', () => {
  test('keeps the headers and the line with the lines above it, under a recomputed hunk header (as Gitea)', () => {
    const patch = cutDiffAroundLine(FILE, 7, false, 4);
    expect(patch).toBe(['diff --git a/f.txt b/f.txt', '--- a/f.txt', '+++ b/f.txt', '@@ -2,1 +4,4 @@', '+four', '+five', '+six', ' seven'].join('\n'));
    expect(diffHunkOf(patch)).toBe(['@@ -2,1 +4,4 @@', '+four', '+five', '+six', ' seven'].join('\n'));
  });

  test('keeps a short hunk whole, and finds old-side lines', () => {
    expect(cutDiffAroundLine(FILE, 2, false, 4)).toBe(['diff --git a/f.txt b/f.txt', '--- a/f.txt', '+++ b/f.txt', '@@ -1,3 +1,8 @@', ' one', '+two'].join('\n'));
    expect(cutDiffAroundLine(OTHER, 1, true, 4)).toBe(['diff --git a/g.txt b/g.txt', '--- a/g.txt', '+++ /dev/null', '@@ -1 +0,0 @@', '-gone'].join('\n'));
  });

  test('answers nothing for a line no hunk holds, or line 0', () => {
    expect(cutDiffAroundLine(FILE, 40, false, 4)).toBe('');
    expect(cutDiffAroundLine(FILE, 0, false, 4)).toBe('');
  });

  test('keeps `[ui] CODE_COMMENT_LINES` lines up to the commented one; 0 keeps none', () => {
    expect(diffHunkOf(cutDiffAroundLine(FILE, 7, false, 2))).toBe(['@@ -2,1 +6,2 @@', '+six', ' seven'].join('\n'));
    expect(cutDiffAroundLine(FILE, 7, false, 0)).toBe('');
  });
});

describe('diffHunkOf', () => {
  test('is empty without exactly one hunk', () => {
    expect(diffHunkOf('')).toBe('');
    expect(diffHunkOf(`${FILE}\n@@ -9 +14 @@`)).toBe('');
  });
});

describe('FileDiffCollector', () => {
  test('keeps the sections of the files asked for, across chunk boundaries', () => {
    const collector = new FileDiffCollector(['f.txt', 'g.txt', 'missing.txt']);
    const text = `${OTHER}\n${FILE}\n`;
    for (let i = 0; i < text.length; i += 7) collector.push(text.slice(i, i + 7));
    const found = collector.finish();
    expect(found.get('f.txt')).toBe(FILE);
    expect(found.get('g.txt')).toBe(OTHER);
    expect(found.has('missing.txt')).toBe(false);
  });
});
