/** The `team_repos` table: organization teams linked to repositories (teams themselves live in accounts). */
import { sql, z, type CommonQueryMethods, type DatabaseTransactionConnection } from '@cairn/db';

const linkRow = z.object({ team_id: z.number(), repo_id: z.number() });

/** The ids of the teams linked to the repository. */
export async function linkedTeamIds(db: CommonQueryMethods, repoId: number): Promise<Set<number>> {
  const rows = await db.any(sql.type(linkRow)`SELECT team_id, repo_id FROM team_repos WHERE repo_id = ${repoId} ORDER BY team_id`);
  return new Set(rows.map((row) => row.team_id));
}

/** The links of the given teams to the given repositories, as repository id → team ids. */
export async function teamLinks(db: CommonQueryMethods, teamIds: readonly number[], repoIds: readonly number[]): Promise<Map<number, Set<number>>> {
  const links = new Map<number, Set<number>>();
  if (teamIds.length === 0 || repoIds.length === 0) return links;
  const rows = await db.any(sql.type(linkRow)`
    SELECT team_id, repo_id FROM team_repos
    WHERE team_id = ANY(${sql.array([...teamIds], 'int8')}) AND repo_id = ANY(${sql.array([...repoIds], 'int8')})
  `);
  for (const row of rows) {
    const teams = links.get(row.repo_id) ?? new Set<number>();
    teams.add(row.team_id);
    links.set(row.repo_id, teams);
  }
  return links;
}

/** Whether a link was added (false when the team already had the repository). */
export async function linkTeam(tx: DatabaseTransactionConnection, link: { orgId: number; teamId: number; repoId: number }): Promise<boolean> {
  const result = await tx.query(sql.unsafe`
    INSERT INTO team_repos (org_id, team_id, repo_id) VALUES (${link.orgId}, ${link.teamId}, ${link.repoId})
    ON CONFLICT (team_id, repo_id) DO NOTHING
  `);
  return result.rowCount > 0;
}

/** Whether a link was removed. */
export async function unlinkTeam(tx: DatabaseTransactionConnection, teamId: number, repoId: number): Promise<boolean> {
  const result = await tx.query(sql.unsafe`DELETE FROM team_repos WHERE team_id = ${teamId} AND repo_id = ${repoId}`);
  return result.rowCount > 0;
}

/** Drops every link of a deleted team. */
export async function unlinkDeletedTeam(tx: DatabaseTransactionConnection, teamId: number): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM team_repos WHERE team_id = ${teamId}`);
}

/** Drops every team link of a repository (it left its organization). */
export async function unlinkAllTeams(tx: DatabaseTransactionConnection, repoId: number): Promise<void> {
  await tx.query(sql.unsafe`DELETE FROM team_repos WHERE repo_id = ${repoId}`);
}
