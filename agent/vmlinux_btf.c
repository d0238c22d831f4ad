/* vmlinux_btf.c - the kernel's BTF for libbpf without a second copy of it.
 *
 * libbpf (1.1, Debian 12's) parses /sys/kernel/btf/vmlinux (5+ MiB) each
 * time it loads a BPF object with tp_btf programs or CO-RE relocations: it
 * reads the whole file into one buffer and then copies that into the parsed
 * BTF, so for a moment the agent holds it twice. That moment was the agent's
 * whole start-up peak (14 MiB against 3 MiB before and after).
 *
 * The agent therefore defines btf__load_vmlinux_btf itself: libbpf calls its
 * own exported functions through the PLT, so the executable's definition is
 * the one its loads use (as does iocost_bpf.c). It maps the sysfs file
 * instead of reading it (kernels since 6.16 allow that; the mapping is the
 * kernel image's own memory, nothing is allocated for it) and hands the
 * mapping to btf__new, which makes the one copy libbpf keeps. Where the
 * mapping is refused (older kernels) or there is no sysfs BTF, libbpf's own
 * function runs, as before. libbpf 1.6 maps the file itself; with it this
 * file has nothing left to do.
 */
#include <bpf/btf.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define VMLINUX_BTF "/sys/kernel/btf/vmlinux"

/* The BTF of VMLINUX_BTF parsed from a read-only mapping of it; NULL when it cannot be mapped. */
static struct btf *from_mapping(void)
{
	struct btf *btf = NULL;
	struct stat st;
	void *raw;
	int fd;

	fd = open(VMLINUX_BTF, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || st.st_size <= 0 || st.st_size > UINT32_MAX)
		goto out;
	raw = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (raw == MAP_FAILED)
		goto out;
	btf = btf__new(raw, (__u32)st.st_size);
	munmap(raw, (size_t)st.st_size);
out:
	close(fd);
	return btf;
}

/* Replaces libbpf's function of the same name for the whole process (see above). */
struct btf *btf__load_vmlinux_btf(void)
{
	struct btf *(*libbpf_own)(void);
	struct btf *btf = from_mapping();

	if (btf)
		return btf;
	/* POSIX guarantees a data pointer from dlsym converts to a function pointer */
	*(void **)&libbpf_own = dlsym(RTLD_NEXT, "btf__load_vmlinux_btf");
	if (!libbpf_own) {
		errno = ESRCH;
		return NULL;
	}
	return libbpf_own();
}
