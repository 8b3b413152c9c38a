// The C half of package hugeheap (see hugeheap.go): a constructor that
// notes, before the Go runtime starts, whether the process runs
// `agentls call`, and the mmap through which the runtime maps its heap.

#define _GNU_SOURCE
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

// hugeheapOn: advise the heap's mappings MADV_HUGEPAGE.
static int hugeheapOn;

// chunkBytes: the runtime maps its heap a 4 MiB chunk at a time
// (pallocChunkBytes).
#define chunkBytes (4 << 20)

// disabled reports whether the environment has GODEBUG=disablethp=1.
static int disabled(char **envp) {
	for (; envp != NULL && *envp != NULL; envp++) {
		const char *v = *envp;
		if (strncmp(v, "GODEBUG=", 8) != 0) {
			continue;
		}
		for (v += 8; *v != '\0';) {
			size_t n = strcspn(v, ",");
			if (n == 12 && strncmp(v, "disablethp=1", 12) == 0) {
				return 1;
			}
			v += n;
			if (*v == ',') {
				v++;
			}
		}
	}
	return 0;
}

#ifdef __GLIBC__
// glibc calls the constructors of the executable with argc, argv and envp,
// before main and so before the Go runtime's start.
__attribute__((constructor)) static void hugeheapStart(int argc, char **argv, char **envp) {
	if (sizeof(void *) == 8 && argc > 1 && argv != NULL && argv[1] != NULL &&
	    strcmp(argv[1], "call") == 0 && !disabled(envp)) {
		hugeheapOn = 1;
	}
}
#endif

// mmap is the C library's mmap (the system call, as glibc's is on 64-bit
// Linux), which in a call advises the heap's mappings MADV_HUGEPAGE
// before anything touches them.
void *mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset) {
	long p = syscall(SYS_mmap, addr, length, prot, flags, fd, offset);
	if (hugeheapOn && p != -1 && (flags & (MAP_FIXED | MAP_ANONYMOUS)) == (MAP_FIXED | MAP_ANONYMOUS) &&
	    prot == (PROT_READ | PROT_WRITE) && length % chunkBytes == 0) {
		syscall(SYS_madvise, p, length, MADV_HUGEPAGE); // no THP in the kernel: 4 KiB pages, as before
	}
	return (void *)p;
}
