/* fsutil.c - see fsutil.h. Reads are bounded: pseudo-files can be large or
 * endless, and callers only want their head.
 */
#include "common/fsutil.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

ssize_t fs_read_small(const char *path, char *buf, size_t cap)
{
	size_t len = 0;
	int fd;

	if (cap == 0)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (len < cap - 1) {
		ssize_t n = read(fd, buf + len, cap - 1 - len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			int err = -errno;
			close(fd);
			return err;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	return (ssize_t)len;
}

char *fs_trim(char *s)
{
	size_t len = strlen(s), start = 0;

	while (len > 0 && isspace((unsigned char)s[len - 1]))
		len--;
	while (start < len && isspace((unsigned char)s[start]))
		start++;
	memmove(s, s + start, len - start);
	s[len - start] = '\0';
	return s;
}

int fs_read_all(const char *path, size_t max, char **out, size_t *len)
{
	FILE *f = fopen(path, "rbe");
	char *buf = NULL;
	size_t n = 0, cap = 0, got;
	int rc = 0;

	if (!f)
		return -errno;
	do {
		if (n == cap) {
			char *nb;

			if (cap > max) {
				rc = -EFBIG;
				break;
			}
			cap = cap ? cap * 2 : 1 << 16;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				rc = -ENOMEM;
				break;
			}
			buf = nb;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	if (!rc && ferror(f))
		rc = -EIO;
	if (!rc && n > max)
		rc = -EFBIG;
	fclose(f);
	if (rc) {
		free(buf);
		return rc;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

ssize_t fs_read_trimmed(const char *path, char *buf, size_t cap)
{
	ssize_t n = fs_read_small(path, buf, cap);

	if (n < 0)
		return n;
	return (ssize_t)strlen(fs_trim(buf));
}

int fs_write_atomic(const char *path, const void *data, size_t len)
{
	char tmp[PATH_MAX];
	const char *p = data;
	int fd, err = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			goto out;
		}
		p += n;
		len -= (size_t)n;
	}
	if (fsync(fd) < 0)
		err = -errno;
out:
	if (close(fd) < 0 && !err)
		err = -errno;
	if (!err && rename(tmp, path) < 0)
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

int fs_mkdir_p(const char *dir)
{
	char path[PATH_MAX];
	size_t len = strlen(dir);

	if (len == 0 || len >= sizeof(path))
		return -ENAMETOOLONG;
	memcpy(path, dir, len + 1);
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}
