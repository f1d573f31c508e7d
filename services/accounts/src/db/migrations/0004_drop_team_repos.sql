-- Team↔repository links belong to the repos service (its own team_repos table); accounts never held any.
DROP TABLE team_repos;
