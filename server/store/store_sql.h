/* store_sql.h - the SQL text both backends run unchanged, written once.
 *
 * Parameters are $1, $2, ...: PostgreSQL numbers them, SQLite takes "$1" as
 * a named parameter and numbers parameters in order of first appearance, so
 * every statement here names $1 first, then $2, and so on, and both bind
 * positionally. PostgreSQL infers each parameter's type from the column it
 * is compared with (BIGINT or TEXT: the binary integers pg_p_int sends fit);
 * a statement whose types it cannot infer, or whose text genuinely differs
 * (upserts, collations, NULL blob casts), stays in its backend.
 */
#ifndef SCHEDIO_SERVER_STORE_STORE_SQL_H
#define SCHEDIO_SERVER_STORE_STORE_SQL_H

/* The columns of struct store_host, in its order. */
#define STORE_SQL_HOST_COLS                                                                                            \
	"id, machine_id, hostname, kernel, arch, cpus, l3_json, disks_json, sched_state, sched_ops, agent_version, "   \
	"first_seen_ms, last_start_ms, last_end_ms, agent_restarted_ms, "                                              \
	"(SELECT labels FROM label_spans l WHERE l.host_id = hosts.id ORDER BY l.first_ms DESC LIMIT 1)"
/* The columns of a rollup row (struct store_row); raw rows add end_ms. */
#define STORE_SQL_ROW_COLS "host_id, t, sched_group, kernel, host_hist, series, iocost"
#define STORE_SQL_RAW_COLS "host_id, start_ms, sched_group, kernel, host_hist, series, iocost, end_ms"

#define STORE_SQL_HOSTS_ONE "SELECT " STORE_SQL_HOST_COLS " FROM hosts WHERE machine_id = $1"
#define STORE_SQL_SCAN_ROLL_HOST                                                                                       \
	"SELECT " STORE_SQL_ROW_COLS " FROM rollups WHERE level = $1 AND host_id = $2 AND t >= $3 AND t < $4 "         \
	"ORDER BY t"
/* Issue 17: each report's health and the sched_ext exits. SQLite reads the health with statements of its own
 * (store_sqlite.c: a host's through its key tables, all hosts' leaving chunked rows out), so HEALTH_ALL is
 * PostgreSQL's alone (store_pg.c). */
#define STORE_SQL_HEALTH_ALL                                                                                           \
	"SELECT host_id, start_ms, end_ms, health FROM reports WHERE start_ms >= $1 AND start_ms < $2 "                \
	"ORDER BY host_id, start_ms, seq"
#define STORE_SQL_EXITS_HOST                                                                                           \
	"SELECT host_id, t_ms, ops, kind, reason, message FROM scx_exits WHERE host_id = $1 AND t_ms >= $2 "           \
	"AND t_ms < $3 ORDER BY t_ms, seq, idx"
#define STORE_SQL_EXITS_ALL                                                                                            \
	"SELECT host_id, t_ms, ops, kind, reason, message FROM scx_exits WHERE t_ms >= $1 AND t_ms < $2 "              \
	"ORDER BY host_id, t_ms, seq, idx"
#define STORE_SQL_EXPIRE_EXITS "DELETE FROM scx_exits WHERE t_ms < $1"
/* Issue 15: label spans (schema/sqlite/0013). A host's latest span stays: it is the host's labels. */
#define STORE_SQL_EXPIRE_LABELS                                                                                        \
	"DELETE FROM label_spans WHERE last_ms < $1 AND first_ms < (SELECT max(first_ms) FROM label_spans x "          \
	"WHERE x.host_id = label_spans.host_id)"
/* Issue 15: saved experiments (schema/sqlite/0014). A name taken inserts nothing and returns no row. */
#define STORE_SQL_EXPERIMENTS_ALL "SELECT id, created_ms, name, definition FROM experiments ORDER BY id"
#define STORE_SQL_EXPERIMENTS_ONE "SELECT id, created_ms, name, definition FROM experiments WHERE id = $1"
#define STORE_SQL_EXPERIMENT_PUT                                                                                       \
	"INSERT INTO experiments (name, definition, created_ms) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING "    \
	"RETURNING id"
#define STORE_SQL_EXPERIMENT_DELETE "DELETE FROM experiments WHERE id = $1"
#define STORE_SQL_FLEET_DEL "DELETE FROM fleet_rollups WHERE level = $1 AND t = $2 AND dim = $3 AND key = $4"
#define STORE_SQL_EXPIRE_FLEET "DELETE FROM fleet_rollups WHERE level = $1 AND t < $2"
#define STORE_SQL_META_GET "SELECT value FROM server_meta WHERE key = $1"
#define STORE_SQL_DICT_PUT                                                                                             \
	"INSERT INTO blob_dicts (id, kind, dict, created_ms) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING"
#define STORE_SQL_DICTS "SELECT id, kind, dict, created_ms FROM blob_dicts ORDER BY created_ms, id"

#define STORE_SQL_TOKEN_REVOKE "UPDATE tokens SET revoked_ms = $1 WHERE name = $2 AND revoked_ms IS NULL"
#define STORE_SQL_TOKEN_LIST "SELECT name, scope, created_ms, revoked_ms FROM tokens ORDER BY id"
/* Any row means valid (the backends count rows, not read the column). */
#define STORE_SQL_TOKEN_CHECK                                                                                          \
	"SELECT 1 FROM tokens WHERE hash = $1 AND revoked_ms IS NULL AND (scope = $2 OR scope = 'admin')"

#define STORE_SQL_SSD_SUMMARY "SELECT summary FROM ssd_results WHERE id = $1"
#define STORE_SQL_SSD_FILE "SELECT gz FROM ssd_files WHERE id = $1"
#define STORE_SQL_SSD_FILE_INSERT "INSERT INTO ssd_files (id, gz) VALUES ($1, $2)"

#endif /* SCHEDIO_SERVER_STORE_STORE_SQL_H */
