import { DEFAULT_README, combineGitignores, fillLicense, renderReadme, splitTemplateNames } from './initial-files';

describe('initial files', () => {
  it('renders Gitea’s default README', () => {
    expect(renderReadme(DEFAULT_README, { name: 'demo', description: 'A demo' })).toBe('# demo\n\nA demo\n');
    expect(renderReadme(DEFAULT_README, { name: 'demo', description: '' })).toBe('# demo\n\n\n');
  });

  it('joins .gitignore templates under `# ---> <name>` headers', () => {
    expect(
      combineGitignores([
        { name: 'Node', text: 'node_modules/\n' },
        { name: 'Go', text: '*.exe' },
      ]),
    ).toBe('# ---> Node\nnode_modules/\n\n# ---> Go\n*.exe\n');
  });

  it('fills every placeholder of a licence', () => {
    const text = 'Copyright (c) <year> <copyright holders>\nCopyright [yyyy] [name of copyright owner] [EMAIL]\n<program>';
    expect(fillLicense(text, { owner: 'acme', email: 'a@b.c', repo: 'demo', year: '2024' })).toBe(
      'Copyright (c) 2024 acme\nCopyright 2024 acme a@b.c\ndemo\n',
    );
  });

  it('splits comma-separated template names', () => {
    expect(splitTemplateNames(' Node, Go ,,')).toEqual(['Node', 'Go']);
    expect(splitTemplateNames('')).toEqual([]);
  });
});
