/* replay_driver.c - runs a libFuzzer target over files when the build has no
 * libFuzzer: each argument is a file or a folder of files fed to
 * LLVMFuzzerTestOneInput once. Used by ctest to keep every fuzz target built
 * and its corpus (including past crashers) passing in every build.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f) {
		perror(path);
		return -1;
	}
	do {
		if (len == cap) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap);
			if (!buf) {
				fclose(f);
				return -1;
			}
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	int files = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;
		DIR *d;
		struct dirent *e;

		if (stat(argv[i], &st) < 0) {
			perror(argv[i]);
			return 1;
		}
		if (!S_ISDIR(st.st_mode)) {
			if (run_file(argv[i]) < 0)
				return 1;
			files++;
			continue;
		}
		d = opendir(argv[i]);
		while (d && (e = readdir(d))) {
			char path[4096];

			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
			if (run_file(path) < 0) {
				closedir(d);
				return 1;
			}
			files++;
		}
		if (d)
			closedir(d);
	}
	printf("replayed %d inputs\n", files);
	return files > 0 ? 0 : 1;
}
