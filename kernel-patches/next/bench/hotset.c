// SPDX-License-Identifier: GPL-2.0
/*
 * hotset MB NODE [huge]: populate MB of private anonymous memory on NODE,
 * return it to the default policy, and read one byte per page of it until
 * killed. Small pages unless "huge".
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MPOL_DEFAULT	0
#define MPOL_BIND	2

static long mbind_node(void *addr, size_t len, int mode, int node)
{
	unsigned long mask = node < 0 ? 0 : 1UL << node;

	return syscall(__NR_mbind, addr, len, mode,
		       node < 0 ? NULL : &mask, node < 0 ? 0 : 64, 0);
}

int main(int argc, char **argv)
{
	size_t len, i;
	unsigned long sum = 0;
	char *mem;
	int node;

	if (argc < 3)
		return 2;
	len = strtoul(argv[1], NULL, 10) << 20;
	node = atoi(argv[2]);
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 1;
	madvise(mem, len, argc > 3 ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	if (mbind_node(mem, len, MPOL_BIND, node))
		return 1;
	memset(mem, 1, len);
	if (mbind_node(mem, len, MPOL_DEFAULT, -1))
		return 1;
	printf("hotset %zu MB populated on node %d\n", len >> 20, node);
	fflush(stdout);
	for (;;) {
		for (i = 0; i < len; i += 4096)
			sum += mem[i];
		asm volatile("" : : "r" (sum) : "memory");
	}
	return 0;
}
