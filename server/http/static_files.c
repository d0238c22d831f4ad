/* static_files.c - serves the dashboard's files from the web folder. Paths are
 * resolved against that folder and refused if they contain "..", a hidden
 * segment or a NUL, so nothing outside it can be read. Unknown paths that
 * look like pages (no extension) get index.html, so URLs stay shareable.
 *
 * Caching: the chart libraries under /vendor/ are staged under names that
 * carry their pinned version (web/CMakeLists.txt), so a name never changes
 * content and browsers keep them a year without asking. Every other file
 * keeps its name across releases: browsers must revalidate it (no-cache)
 * and are answered 304 while its ETag (size and mtime) still holds.
 */
#include "server/api/api.h"
#include "server/http/conditional.h"

#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *content_type(const char *path)
{
	static const struct {
		const char *ext, *type;
	} types[] = {
		{ ".html", "text/html; charset=utf-8" },
		{ ".js", "text/javascript; charset=utf-8" },
		{ ".mjs", "text/javascript; charset=utf-8" },
		{ ".css", "text/css; charset=utf-8" },
		{ ".svg", "image/svg+xml" },
		{ ".png", "image/png" },
		{ ".json", "application/json" },
		{ ".map", "application/json" },
		{ ".ico", "image/x-icon" },
	};
	const char *dot = strrchr(path, '.');

	for (size_t i = 0; dot && i < sizeof(types) / sizeof(types[0]); i++)
		if (strcmp(dot, types[i].ext) == 0)
			return types[i].type;
	return "application/octet-stream";
}

static int safe_path(const char *p)
{
	if (p[0] != '/')
		return 0;
	for (const char *s = p; *s; s++) {
		if (s[0] == '/' && s[1] == '.')
			return 0; /* "..", hidden files */
		if (*s == '\\')
			return 0;
	}
	return 1;
}

/* Versioned names only: see the top of this file. */
static bool immutable_path(const char *rel)
{
	return strncmp(rel, "/vendor/", 8) == 0;
}

static void add_cache_headers(struct MHD_Response *res, const char *rel, const char *etag, const char *modified)
{
	if (immutable_path(rel)) {
		MHD_add_response_header(res, MHD_HTTP_HEADER_CACHE_CONTROL, "public, max-age=31536000, immutable");
		return;
	}
	MHD_add_response_header(res, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
	MHD_add_response_header(res, MHD_HTTP_HEADER_ETAG, etag);
	if (*modified)
		MHD_add_response_header(res, MHD_HTTP_HEADER_LAST_MODIFIED, modified);
}

enum MHD_Result static_files_serve(struct http_request *req)
{
	const char *web = req->srv->web_dir, *rel = req->path, *ctype;
	char file[PATH_MAX], etag[CONDITIONAL_ETAG_MAX], modified[CONDITIONAL_DATE_MAX];
	struct MHD_Response *res;
	unsigned status = MHD_HTTP_OK;
	struct stat st;
	int fd;

	if (!*web)
		return http_reply_error(req, MHD_HTTP_NOT_FOUND, "this server has no dashboard installed");
	if (!safe_path(rel))
		return http_reply_error(req, MHD_HTTP_NOT_FOUND, "no such file");
	if (strcmp(rel, "/") == 0 || !strchr(strrchr(rel, '/'), '.'))
		rel = "/index.html";
	if (snprintf(file, sizeof(file), "%s%s", web, rel) >= (int)sizeof(file))
		return http_reply_error(req, MHD_HTTP_NOT_FOUND, "no such file");
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return http_reply_error(req, MHD_HTTP_NOT_FOUND, "no such file");
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return http_reply_error(req, MHD_HTTP_NOT_FOUND, "no such file");
	}
	ctype = content_type(rel);
	conditional_etag(etag, (uint64_t)st.st_size, (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec);
	conditional_http_date(modified, st.st_mtim.tv_sec);
	if (!immutable_path(rel) &&
	    conditional_not_modified(http_header(req, MHD_HTTP_HEADER_IF_NONE_MATCH),
				     http_header(req, MHD_HTTP_HEADER_IF_MODIFIED_SINCE), etag, st.st_mtim.tv_sec)) {
		close(fd);
		status = MHD_HTTP_NOT_MODIFIED;
		res = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
	} else {
		res = MHD_create_response_from_fd((uint64_t)st.st_size, fd); /* owns fd now */
		if (!res)
			close(fd);
	}
	if (!res)
		return MHD_NO;
	if (status == MHD_HTTP_OK)
		MHD_add_response_header(res, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	add_cache_headers(res, rel, etag, modified);
	http_add_security_headers(res, ctype);
	return http_send(req, status, res);
}
