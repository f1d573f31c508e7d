import { isExcludedPath, languageOf, languageStats } from './language-stats';

describe('languageOf', () => {
  it.each([
    ['src/main.go', 'Go'],
    ['lib/index.ts', 'TypeScript'],
    ['app.py', 'Python'],
    ['include/util.h', 'C'],
    ['Makefile', 'Makefile'],
    ['Dockerfile', 'Dockerfile'],
    ['web/style.css', 'CSS'],
    ['README.md', 'Markdown'],
  ])('%s is %s', (path, language) => {
    expect(languageOf(path)?.name).toBe(language);
  });

  it('knows nothing of unknown extensions', () => {
    expect(languageOf('data.unknown-ext')).toBeUndefined();
    expect(languageOf('NOTES')).toBeUndefined();
  });
});

describe('isExcludedPath', () => {
  it.each(['node_modules/x/index.js', 'vendor/lib.go', 'docs/guide.html', 'dist/app.js', '.eslintrc.js', 'app.min.js', 'package-lock.json', 'README.md'])(
    'leaves out %s',
    (path) => expect(isExcludedPath(path)).toBe(true),
  );
  it.each(['src/app.js', 'cmd/main.go', 'web/index.html', 'lib/docs.ts'])('keeps %s', (path) => expect(isExcludedPath(path)).toBe(false));
});

describe('languageStats', () => {
  it('adds bytes per programming and markup language, leaving out the rest', () => {
    const stats = languageStats([
      { path: 'main.go', size: 100 },
      { path: 'util/strings.go', size: 50 },
      { path: 'web/index.html', size: 30 },
      { path: 'README.md', size: 500 },
      { path: 'config.yaml', size: 40 },
      { path: 'vendor/dep/dep.go', size: 9000 },
      { path: '.github/workflows/ci.js', size: 70 },
      { path: 'empty.go', size: 0 },
    ]);
    expect(Object.fromEntries(stats)).toEqual({ Go: 150, HTML: 30 });
  });

  it('counts the first other language when no programming or markup language is left (Gitea)', () => {
    expect(Object.fromEntries(languageStats([{ path: 'schema.sql', size: 10 }, { path: 'notes.txt', size: 5 }]))).toEqual({ SQL: 10 });
    expect(languageStats([])).toEqual(new Map());
  });
});
