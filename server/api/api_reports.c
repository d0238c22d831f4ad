/* api_reports.c - POST /api/v1/reports, where agent reports come in. The
 * HTTP thread does the CPU work (inflate, parse, encode blobs) and suspends
 * the connection before queueing the job for the writer (ingest.c), so the
 * writer can never resume a connection that is not suspended yet; the
 * resumed request then answers with what the commit said.
 *
 * Under overload a report is refused with 503 and Retry-After: before it is
 * parsed when ingest already knows it cannot store it in time (so refusing
 * costs next to nothing and the HTTP threads stay free for what can be
 * stored), or when it was shed from the queue.
 */
#include "server/api/api.h"

#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "common/gz.h"
#include "common/log.h"
#include "server/http/auth.h"
#include "server/http/body_pool.h"
#include "server/ingest/ingest.h"
#include "server/ingest/health_stats.h"
#include "server/ingest/runqlat_counters.h"
#include "server/ingest/stats.h"
#include "server/server.h"
#include "server/store/store.h"

static enum MHD_Result reject(struct http_request *req, enum stats_reject why, unsigned status, const char *msg)
{
	atomic_fetch_add(&req->srv->stats.rejected[why], 1);
	return http_reply_error(req, status, "%s", msg);
}

/* 503 with Retry-After: the report was not stored, the agent keeps it and comes back. */
static enum MHD_Result refuse(struct http_request *req, unsigned retry_after_s)
{
	atomic_fetch_add(&req->srv->stats.rejected[STATS_REJECT_UNAVAILABLE], 1);
	return http_reply_unavailable(
	    req, retry_after_s, "the server is busy or shutting down; report not stored, retry in %u s", retry_after_s);
}

static enum MHD_Result answer(struct http_request *req, struct ingest_job *job)
{
	struct stats *s = &req->srv->stats;
	enum MHD_Result ret;
	char text[64];
	int n;

	if (job->result == STORE_STORED || job->result == STORE_DUPLICATE) {
		atomic_fetch_add(job->result == STORE_STORED ? &s->accepted : &s->duplicates, 1);
		if (job->result == STORE_STORED && job->rep.dropped > 0)
			atomic_fetch_add(&s->agent_dropped, (uint_fast64_t)job->rep.dropped);
		if (job->result == STORE_STORED && job->rep.agent_restarted)
			atomic_fetch_add(&s->agent_restarts, 1);
		if (job->result == STORE_STORED)
			health_stats_add(job->rep.machine_id, job->rep.start_ms, job->rep.health_json,
					 job->rep.exits_json);
		/* Only stored reports: a duplicate's samples are already counted. */
		if (job->result == STORE_STORED && job->rep.has_runqlat && job->rep.host_hist.len &&
		    runqlat_counters_add(job->rep.machine_id, job->rep.hostname, job->rep.end_ms, job->rep.host_hist.p,
					 job->rep.host_hist.len) == -ENOMEM)
			log_error("runqlat counters: out of memory; /metrics misses a report");
		/* printed, not built as a tree: the answer to every report */
		n = snprintf(text, sizeof(text), "{\"duplicate\":%s,\"seq\":%" PRIu64 "}",
			     job->result == STORE_DUPLICATE ? "true" : "false", job->rep.seq);
		ret = http_reply(req, MHD_HTTP_OK, "application/json", text, (size_t)n);
	} else if (job->result == INGEST_REFUSED) {
		ret = refuse(req, job->retry_after_s);
	} else {
		ret = reject(req, STATS_REJECT_STORE, MHD_HTTP_INTERNAL_SERVER_ERROR,
			     "the report could not be stored; retry later");
	}
	stats_hist_add(&s->latency, (uint64_t)(ingest_mono_us() - job->t0_us));
	return ret;
}

static enum stats_reject reason_of(int status)
{
	switch (status) {
	case 413:
		return STATS_REJECT_TOO_LARGE;
	case 415:
	case 422:
		return STATS_REJECT_UNSUPPORTED;
	case 400:
		return STATS_REJECT_INVALID;
	default:
		return STATS_REJECT_STORE;
	}
}

enum MHD_Result api_reports_post(struct http_request *req)
{
	struct server *srv = req->srv;
	struct ingest_job *job = req->state;
	const char *enc = http_header(req, MHD_HTTP_HEADER_CONTENT_ENCODING);
	char *inflated = NULL, err[512];
	const char *body = req->body;
	size_t len = req->body_len, inflated_cap = 0;
	enum MHD_Result reply;
	unsigned retry_after_s;
	int status;

	if (job) /* resumed by the writer after the commit, or by the shedder */
		return answer(req, job);
	if (!srv->opt.open_ingest && !auth_require(req, "ingest", &reply)) {
		atomic_fetch_add(&srv->stats.rejected[STATS_REJECT_UNAUTHORIZED], 1);
		return reply;
	}
	if (!ingest_admit(srv->ingest, req->t0_us, &retry_after_s)) {
		stats_hist_add(&srv->stats.latency, (uint64_t)(ingest_mono_us() - req->t0_us));
		return refuse(req, retry_after_s);
	}
	if (enc && strcasecmp(enc, "gzip") != 0 && strcasecmp(enc, "identity") != 0)
		return reject(req, STATS_REJECT_UNSUPPORTED, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE,
			      "Content-Encoding must be gzip or identity");
	if (enc && strcasecmp(enc, "gzip") == 0) {
		/* into a kept buffer, as the body's own: a report inflates to ~17 KB */
		int rc;

		inflated =
		    body_pool_get(gz_inflated_hint(req->body, req->body_len, srv->opt.max_inflated), &inflated_cap);
		rc = inflated ? gz_inflate_buf(req->body, req->body_len, srv->opt.max_inflated, &inflated,
					       &inflated_cap, &len)
			      : -ENOMEM;
		if (rc < 0) {
			body_pool_put(inflated, inflated_cap);
			inflated = NULL;
		}
		if (rc == -E2BIG) {
			snprintf(err, sizeof(err), "decompressed body is larger than the limit of %zu bytes",
				 srv->opt.max_inflated);
			return reject(req, STATS_REJECT_TOO_LARGE, MHD_HTTP_CONTENT_TOO_LARGE, err);
		}
		if (rc == -ENOMEM)
			return refuse(req, 1);
		if (rc < 0)
			return reject(req, STATS_REJECT_INVALID, MHD_HTTP_BAD_REQUEST, "body is not valid gzip data");
		body = inflated;
	}
	job = calloc(1, sizeof(*job));
	if (!job) {
		body_pool_put(inflated, inflated_cap);
		return refuse(req, 1); /* out of memory */
	}
	job->t0_us = req->t0_us;
	status = report_parse(body, len, &job->rep, err, sizeof(err));
	body_pool_put(inflated, inflated_cap);
	if (status) {
		ingest_job_free(job);
		return reject(req, reason_of(status), (unsigned)status, err);
	}
	/* the report holds copies of what it keeps: its body's buffer serves the thread's next request
	 * while this one waits for its commit */
	http_body_release(req);
	job->conn = req->conn;
	req->state = job;
	req->state_free = ingest_job_free;
	http_suspend(req);
	if (!ingest_submit(srv->ingest, job)) {
		job->result = INGEST_REFUSED;
		atomic_store(&job->done, 1);
		MHD_resume_connection(req->conn);
	}
	return MHD_YES;
}
