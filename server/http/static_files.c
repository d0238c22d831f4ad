/* static_files.c - serves the dashboard's files from the web folder. Paths are
 * resolved against that folder and refused if they contain "..", a hidden
 * segment or a NUL, so nothing outside it can be read. Unknown paths that
 * look like pages (no extension) get index.html, so URLs stay shareable.
 */
#include "server/api/api.h"

#include <fcntl.h>
#include <limits.h>
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

enum MHD_Result static_files_serve(struct http_request *req)
{
	const char *web = req->srv->web_dir, *rel = req->path;
	char file[PATH_MAX];
	struct MHD_Response *res;
	struct stat st;
	enum MHD_Result ret;
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
	res = MHD_create_response_from_fd((uint64_t)st.st_size, fd); /* owns fd now */
	if (!res)
		return MHD_NO;
	MHD_add_response_header(res, MHD_HTTP_HEADER_CONTENT_TYPE, content_type(rel));
	MHD_add_response_header(res, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
	MHD_add_response_header(res, "X-Content-Type-Options", "nosniff");
	ret = MHD_queue_response(req->conn, MHD_HTTP_OK, res);
	MHD_destroy_response(res);
	return ret;
}
