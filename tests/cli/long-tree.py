#!/usr/bin/env python3
# tests/cli/long-tree.py DIR [FILE=VALUE]: below the cgroup DIR of a fake
# tree, a chain 249 levels deep of 255-byte names ("dNNN-000...") with 100
# leaves at its bottom ("000...-leafNNN", the leaf's number at the end), each
# with the files of a memory cgroup: paths up to 64 KB, 14 MB of paths in
# all.  Made level by level through fds, so no path handed to the kernel is
# long.  With FILE=VALUE, the tree exists: write VALUE to FILE of each leaf.
# Used by tests/cli/test-longpaths.sh and tests/daemon/host-longpaths.sh.
import os
import sys

DEPTH, LEAVES = 249, 100
FILES = (("memory.numa_balancing", "inherit\n"), ("memory.low", "0\n"),
         ("memory.high", "max\n"), ("memory.current", "8192\n"),
         ("memory.stat", "anon 4096\nfile 0\n"),
         ("memory.numa_stat", "anon N0=4096 N1=0\nfile N0=0 N1=0\n"),
         ("cgroup.procs", ""), ("cgroup.controllers", "cpu io memory pids\n"),
         ("cgroup.events", "populated 0\nfrozen 0\n"))


def level(i):
    return ("d%03d-" % i).ljust(255, "0")


def leaf(i):
    return "0" * 246 + "-leaf%03d" % i


def put(dfd, name, value, flags=os.O_CREAT):
    fd = os.open(name, os.O_WRONLY | os.O_TRUNC | flags, 0o644, dir_fd=dfd)
    os.write(fd, value.encode())
    os.close(fd)


def descend(dfd, name, create):
    if create:
        os.mkdir(name, dir_fd=dfd)
    fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=dfd)
    if create:
        for f, v in FILES:
            put(fd, f, v)
    return fd


def main():
    create = len(sys.argv) == 2
    fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
    for i in range(DEPTH):
        nfd = descend(fd, level(i), create)
        os.close(fd)
        fd = nfd
    for i in range(LEAVES):
        lfd = descend(fd, leaf(i), create)
        if not create:
            f, v = sys.argv[2].split("=", 1)
            put(lfd, f, v + "\n", 0)
        os.close(lfd)


main()
