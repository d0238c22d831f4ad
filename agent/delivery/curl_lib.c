/* curl_lib.c - see curl_lib.h.
 *
 * The library loaded is the one the agent was built against
 * (SCHEDIO_CURL_SONAME, found by CMake), so its ABI is the one the
 * headers describe; libcurl's soname has been libcurl.so.4 (or Debian's
 * libcurl-gnutls.so.4) for every 7.x and 8.x release. Loading happens at
 * most once under a mutex; the handle stays until curl_lib_release.
 *
 * Loading it per send and unloading it after was measured and rejected: a
 * dlopen of its ~30 libraries costs ~12 ms of CPU (four times the agent's
 * whole CPU per 10 s interval), and libcrypto and libp11-kit are NODELETE,
 * so 3.3 MiB of them stayed mapped anyway. curl_lib_trim keeps the
 * libraries loaded and lets go of their file pages instead: right after the
 * load (symbol tables, relocation records and initialisation code, ~6 MiB,
 * are not used again) and then now and then. Only pages nothing ever wrote
 * are let go (code, read-only data: the file's own bytes, which the next
 * access maps again from the page cache); relocated and written pages stay.
 * What is let go is no longer the agent's: unmapped, clean page cache that
 * the kernel reclaims first, shared with any other user of the same files.
 */
#include "agent/delivery/curl_lib.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifndef SCHEDIO_CURL_SONAME
#define SCHEDIO_CURL_SONAME "libcurl.so.4"
#endif

/* How often curl_lib_rest trims again. Most of what the load made resident is gone after the
 * first trim; a send maps ~0.5 MiB again and keeps it, so trimming after every send would buy the
 * same page faults back each interval. What else comes back (a reconnect, a TLS handshake, an
 * error path) goes at the next trim. A trim costs ~2.5 ms of CPU (a TLB flush per library in a
 * VM): every 10 minutes that is 0.0004 % of a core. */
#define CURL_LIB_TRIM_EVERY_S 600

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct curl_lib lib;
static void *handle;
static char failure[512];
/* When curl_lib_trim last ran (CLOCK_MONOTONIC seconds). */
static time_t trimmed_s;
/* How many objects were loaded before libcurl: those are the agent's own (libc, libz, libbpf...). */
static int objects_before;

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

static void trim_locked(void);

static int count_object(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)info;
	(void)size;
	(*(int *)data)++;
	return 0;
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
	objects_before = 0;
	dl_iterate_phdr(count_object, &objects_before);
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
	trim_locked();
done:
	if (!out)
		snprintf(err, errlen, "%s", failure);
	pthread_mutex_unlock(&lock);
	return out;
}

/* True when the object's text is relocated in place (DT_TEXTREL): its "read-only" pages were written. */
static bool has_textrel(const struct dl_phdr_info *info)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const ElfW(Dyn) * d;

		if (ph->p_type != PT_DYNAMIC)
			continue;
		for (d = (const ElfW(Dyn) *)(info->dlpi_addr + ph->p_vaddr); d->d_tag != DT_NULL; d++)
			if (d->d_tag == DT_TEXTREL || (d->d_tag == DT_FLAGS && (d->d_un.d_val & DF_TEXTREL)))
				return true;
	}
	return false;
}

/* Narrows [*lo, *hi) so that it shares no page with segment ph (one that is written: data, RELRO). */
static void avoid_written(const ElfW(Phdr) * ph, uintptr_t base, uintptr_t page, uintptr_t *lo, uintptr_t *hi)
{
	uintptr_t wlo = (base + ph->p_vaddr) & ~(page - 1);
	uintptr_t whi = (base + ph->p_vaddr + ph->p_memsz + page - 1) & ~(page - 1);

	if (whi <= *lo || wlo >= *hi)
		return;
	if (wlo <= *lo)
		*lo = whi < *hi ? whi : *hi;
	else
		*hi = wlo;
}

struct trim_walk {
	int index;        /* of the object being visited */
	uintptr_t lo, hi; /* the range not advised yet */
};

/* Advises [lo, hi) away unless it continues the pending range, which it then extends: an object's
 * read-only segments are adjacent, and each madvise costs a TLB flush (~30 us in a VM). */
static void trim_range(struct trim_walk *w, uintptr_t lo, uintptr_t hi)
{
	if (lo == w->hi && lo < hi) {
		w->hi = hi;
		return;
	}
	if (w->lo < w->hi)
		madvise((void *)w->lo, w->hi - w->lo, MADV_DONTNEED); /* a failure only leaves pages resident */
	w->lo = lo;
	w->hi = hi;
}

/* For each object loaded with or after libcurl: MADV_DONTNEED on the pages of its segments that are
 * never written (code, read-only data), which are the file's pages: they are mapped again from the
 * page cache on the next access. Written pages (data, relocated RELRO) are never touched: dropping
 * them would lose their contents. */
static int trim_object(struct dl_phdr_info *info, size_t size, void *data)
{
	struct trim_walk *w = data;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);

	(void)size;
	if (w->index++ < objects_before || has_textrel(info))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo, hi;

		if (ph->p_type != PT_LOAD || (ph->p_flags & PF_W))
			continue;
		/* whole pages, as ld.so maps them; pages shared with a written segment are cut off below */
		lo = (info->dlpi_addr + ph->p_vaddr) & ~(page - 1);
		hi = (info->dlpi_addr + ph->p_vaddr + ph->p_memsz + page - 1) & ~(page - 1);
		for (int j = 0; j < info->dlpi_phnum && lo < hi; j++) {
			const ElfW(Phdr) *o = &info->dlpi_phdr[j];

			if ((o->p_type == PT_LOAD && (o->p_flags & PF_W)) || o->p_type == PT_GNU_RELRO)
				avoid_written(o, info->dlpi_addr, page, &lo, &hi);
		}
		if (lo < hi)
			trim_range(w, lo, hi);
	}
	return 0;
}

/* Trims with the lock held and libcurl loaded. */
static void trim_locked(void)
{
	struct trim_walk w = { 0 };
	struct timespec now;

	dl_iterate_phdr(trim_object, &w);
	trim_range(&w, 0, 0);
	clock_gettime(CLOCK_MONOTONIC, &now);
	trimmed_s = now.tv_sec;
}

void curl_lib_trim(void)
{
	pthread_mutex_lock(&lock);
	if (handle)
		trim_locked();
	pthread_mutex_unlock(&lock);
}

void curl_lib_rest(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	pthread_mutex_lock(&lock);
	if (handle && now.tv_sec - trimmed_s >= CURL_LIB_TRIM_EVERY_S)
		trim_locked();
	pthread_mutex_unlock(&lock);
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
