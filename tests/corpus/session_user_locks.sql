-- User-level locks across two sessions (issue 15 item 6): re-entrant counts, holders, releases,
-- timeouts, and release when the holder disconnects is covered by the Rust tests.
SELECT GET_LOCK('a', 0), GET_LOCK('a', 0), IS_USED_LOCK('a') = CONNECTION_ID(), IS_FREE_LOCK('a'), IS_FREE_LOCK('b'), IS_USED_LOCK('b');
SELECT RELEASE_LOCK('a'), RELEASE_LOCK('a'), RELEASE_LOCK('a'), RELEASE_LOCK('b');
SELECT GET_LOCK('a', 0), GET_LOCK('a', 0), GET_LOCK('c', 0), RELEASE_ALL_LOCKS(), RELEASE_ALL_LOCKS();
SELECT GET_LOCK(NULL, 0), GET_LOCK('', 0), RELEASE_LOCK(NULL), IS_FREE_LOCK(NULL), IS_USED_LOCK(NULL);
SELECT GET_LOCK('A', 0), IS_FREE_LOCK('a');
SELECT GET_LOCK('x', NULL);
SELECT GET_LOCK('y', -1);
SELECT GET_LOCK('z', 'abc');
SELECT GET_LOCK('held', 0);
-- connection other
SELECT IS_FREE_LOCK('held'), IS_USED_LOCK('held') IS NOT NULL, GET_LOCK('held', 0.1), RELEASE_LOCK('held');
SELECT GET_LOCK('mine', 0);
-- connection default
SELECT GET_LOCK('mine', 0), RELEASE_LOCK('mine');
SELECT RELEASE_ALL_LOCKS();
-- connection other
SELECT GET_LOCK('held', 0), RELEASE_ALL_LOCKS();
SELECT RELEASE_ALL_LOCKS();
