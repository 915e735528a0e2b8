// SPDX-License-Identifier: GPL-2.0
/*
 * rdinit: the initramfs init for booting a distribution kernel (Debian's
 * linux-image-6.12) in the two-tier test VM.
 *
 * Our own kernels have 9p and virtio built in and mount the host's / as
 * their root directly. Debian's has 9p as modules, so this program, the
 * initramfs's /init, loads the modules named in /modules (one file name per
 * line, in load order; the files are in /m, compressed as Debian ships
 * them: the kernel decompresses them, CONFIG_MODULE_DECOMPRESS), mounts the
 * root as run-vm's command line says (root=, rootfstype=, rootflags=, ro),
 * moves it over / and executes the init= program there, as the kernel does
 * without an initramfs. Every failure is printed and ends the VM (the
 * kernel panics when PID 1 exits; run-vm's command line has panic=-1).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef MODULE_INIT_COMPRESSED_FILE
#define MODULE_INIT_COMPRESSED_FILE 4
#endif

static char cmdline[8192];

static const char *param(const char *name)
{
	size_t n = strlen(name);
	char *p;

	for (p = cmdline; (p = strstr(p, name)); p += n)
		if ((p == cmdline || p[-1] == ' ') && p[n] == '=')
			return p + n + 1;
	return NULL;
}

/* A copy of a parameter's value up to the next blank. */
static char *param_dup(const char *name, const char *fallback)
{
	const char *v = param(name);

	if (!v)
		return fallback ? strdup(fallback) : NULL;
	return strndup(v, strcspn(v, " \n"));
}

static int has_word(const char *word)
{
	size_t n = strlen(word);
	char *p;

	for (p = cmdline; (p = strstr(p, word)); p += n)
		if ((p == cmdline || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\n' || !p[n]))
			return 1;
	return 0;
}

static void die(const char *what)
{
	fprintf(stderr, "rdinit: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void load_modules(void)
{
	char name[256], path[300];
	FILE *f = fopen("/modules", "re");

	if (!f)
		die("/modules");
	while (fgets(name, sizeof(name), f)) {
		int fd;

		name[strcspn(name, "\n")] = 0;
		if (!name[0])
			continue;
		snprintf(path, sizeof(path), "/m/%s", name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			die(path);
		if (syscall(SYS_finit_module, fd, "", MODULE_INIT_COMPRESSED_FILE) && errno != EEXIST)
			die(path);
		close(fd);
	}
	fclose(f);
}

int main(void)
{
	char *root, *type, *flags, *init;
	ssize_t n;
	int fd;

	if (mkdir("/proc", 0755) && errno != EEXIST)
		die("mkdir /proc");
	if (mount("proc", "/proc", "proc", 0, NULL))
		die("mount /proc");
	fd = open("/proc/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die("/proc/cmdline");
	n = read(fd, cmdline, sizeof(cmdline) - 1);
	if (n < 0)
		die("read /proc/cmdline");
	cmdline[n] = 0;
	close(fd);

	load_modules();

	root = param_dup("root", "/dev/root");
	type = param_dup("rootfstype", "9p");
	flags = param_dup("rootflags", NULL);
	init = param_dup("init", "/sbin/init");
	if (mkdir("/root", 0755) && errno != EEXIST)
		die("mkdir /root");
	if (mount(root, "/root", type, has_word("ro") ? MS_RDONLY : 0, flags))
		die("mount the root");
	if (umount2("/proc", MNT_DETACH))
		die("umount /proc");
	/* switch_root without deleting the initramfs: it is a few hundred KB. */
	if (chdir("/root") || mount(".", "/", NULL, MS_MOVE, NULL) || chroot("."))
		die("move the root over /");
	if (chdir("/"))
		die("chdir /");
	execl(init, init, (char *)NULL);
	die(init);
	return 1;
}
