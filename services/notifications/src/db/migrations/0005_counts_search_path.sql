-- The counters' trigger function names its tables unqualified: pin the schema it runs in to the one it was created
-- in, so that a writer whose session has another search_path (an operator's psql, a test or benchmark seeding rows)
-- keeps the counters right instead of failing on "relation notification_counts does not exist".
ALTER FUNCTION notification_counts_apply() SET search_path FROM CURRENT;
