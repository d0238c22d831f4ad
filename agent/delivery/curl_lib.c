/* curl_lib.c - see curl_lib.h.
 *
 * The library loaded is the one the agent was built against
 * (SCHEDIO_CURL_SONAME, found by CMake), so its ABI is the one the
 * headers describe; libcurl's soname has been libcurl.so.4 (or Debian's
 * libcurl-gnutls.so.4) for every 7.x and 8.x release. Loading happens at
 * most once under a mutex; the handle stays until curl_lib_release.
 */
#include "agent/delivery/curl_lib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#ifndef SCHEDIO_CURL_SONAME
#define SCHEDIO_CURL_SONAME "libcurl.so.4"
#endif

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct curl_lib lib;
static void *handle;
static char failure[512];

/* Resolves every entry point; the name of the first missing one, or NULL. */
static const char *resolve(void *h, struct curl_lib *l)
{
	static const struct {
		const char *name;
		size_t off;
	} syms[] = {
		{ "curl_easy_init", offsetof(struct curl_lib, easy_init) },
		{ "curl_easy_setopt", offsetof(struct curl_lib, easy_setopt) },
		{ "curl_easy_perform", offsetof(struct curl_lib, easy_perform) },
		{ "curl_easy_getinfo", offsetof(struct curl_lib, easy_getinfo) },
		{ "curl_easy_cleanup", offsetof(struct curl_lib, easy_cleanup) },
		{ "curl_easy_strerror", offsetof(struct curl_lib, easy_strerror) },
		{ "curl_slist_append", offsetof(struct curl_lib, slist_append) },
		{ "curl_slist_free_all", offsetof(struct curl_lib, slist_free_all) },
		{ "curl_global_init", offsetof(struct curl_lib, global_init) },
		{ "curl_global_cleanup", offsetof(struct curl_lib, global_cleanup) },
	};

	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		void *f = dlsym(h, syms[i].name);

		if (!f)
			return syms[i].name;
		/* POSIX guarantees a data pointer from dlsym converts to a function pointer */
		memcpy((char *)l + syms[i].off, &f, sizeof(f));
	}
	return NULL;
}

const struct curl_lib *curl_lib_get(char *err, size_t errlen)
{
	const struct curl_lib *out = NULL;
	const char *missing;
	void *h;

	pthread_mutex_lock(&lock);
	if (handle) {
		out = &lib;
		goto done;
	}
	h = dlopen(SCHEDIO_CURL_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(failure, sizeof(failure), "cannot load libcurl (%s): %s; install the libcurl package",
			 SCHEDIO_CURL_SONAME, dlerror());
		goto done;
	}
	missing = resolve(h, &lib);
	if (missing) {
		snprintf(failure, sizeof(failure), "%s lacks %s: libcurl 7.62 or later is needed", SCHEDIO_CURL_SONAME,
			 missing);
		dlclose(h);
		goto done;
	}
	if (lib.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		snprintf(failure, sizeof(failure), "libcurl failed to initialise (%s)", SCHEDIO_CURL_SONAME);
		dlclose(h);
		goto done;
	}
	handle = h;
	out = &lib;
done:
	if (!out)
		snprintf(err, errlen, "%s", failure);
	pthread_mutex_unlock(&lock);
	return out;
}

void curl_lib_release(void)
{
	pthread_mutex_lock(&lock);
	if (handle) {
		lib.global_cleanup();
		dlclose(handle);
		handle = NULL;
	}
	pthread_mutex_unlock(&lock);
}
