/* curl_lib.h - libcurl, loaded when the agent first sends a report.
 *
 * Linking libcurl maps it and its TLS stack (GnuTLS, OpenSSL's libcrypto via
 * libssh2, Kerberos, LDAP, p11-kit) at exec, and their constructors make
 * ~6 MiB resident before main runs. Loading it with dlopen after the BPF
 * programs are loaded keeps that off the agent's start-up peak (the
 * kernel BTF parse) and out of --stdout runs altogether. Most of what the
 * load makes resident (symbol tables, relocation records, initialisation
 * code) is not used again, so it is let go right after (curl_lib_trim). */
#ifndef SCHEDIO_AGENT_DELIVERY_CURL_LIB_H
#define SCHEDIO_AGENT_DELIVERY_CURL_LIB_H

#include <stddef.h>
#include <curl/curl.h>

/* The libcurl entry points the agent uses. */
struct curl_lib {
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *curl, CURLoption option, ...);
	CURLcode (*easy_perform)(CURL *curl);
	CURLcode (*easy_getinfo)(CURL *curl, CURLINFO info, ...);
	void (*easy_cleanup)(CURL *curl);
	const char *(*easy_strerror)(CURLcode code);
	struct curl_slist *(*slist_append)(struct curl_slist *list, const char *s);
	void (*slist_free_all)(struct curl_slist *list);
	CURLcode (*global_init)(long flags);
	void (*global_cleanup)(void);
};

/* Loads and initialises libcurl once (thread-safe); NULL with the reason in err. */
const struct curl_lib *curl_lib_get(char *err, size_t errlen);
/* Lets go of the file pages (code, read-only data) of libcurl and the libraries it brought in, to be
 * mapped again from the page cache when used; done once after loading, then at most every 10 minutes. */
void curl_lib_trim(void);
/* Between sends: curl_lib_trim if the last one was 10 minutes ago or more. */
void curl_lib_rest(void);
/* Cleans up and unloads libcurl if it was loaded; call once at exit, after every handle is freed. */
void curl_lib_release(void);

#endif /* SCHEDIO_AGENT_DELIVERY_CURL_LIB_H */
