/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Small helpers shared by libtier and its tests. */
#ifndef LIBTIER_MACRO_H
#define LIBTIER_MACRO_H

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define _public_ __attribute__((visibility("default")))
#define _cleanup_(f) __attribute__((cleanup(f)))
#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _likely_(x) __builtin_expect(!!(x), 1)
#define _unlikely_(x) __builtin_expect(!!(x), 0)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)

/* a + b, saturating at UINT64_MAX instead of wrapping */
static inline uint64_t add_sat_u64(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static inline void freep(void *p)
{
	free(*(void **)p);
}

static inline void closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;

		close(*fd);
		errno = saved;
	}
}

static inline void fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

static inline void closedirp(DIR **d)
{
	if (*d)
		closedir(*d);
}

#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)
#define _cleanup_fclose_ _cleanup_(fclosep)
#define _cleanup_closedir_ _cleanup_(closedirp)

/* Take ownership out of a _cleanup_ variable. */
#define TAKE_PTR(p)                              \
	({                                       \
		__typeof__(p) _tmp_ = (p);       \
		(p) = NULL;                      \
		_tmp_;                           \
	})

#define TAKE_FD(fd)                      \
	({                               \
		int _tmp_ = (fd);        \
		(fd) = -1;               \
		_tmp_;                   \
	})

/* Append item to a realloc'ed array; evaluates to 0 or -ENOMEM. */
#define ARRAY_PUSH(arr, n, alloc, item)                                          \
	({                                                                       \
		int _r_ = 0;                                                     \
		if ((n) == (alloc)) {                                            \
			size_t _na_ = (alloc) ? (alloc) * 2 : 8;                 \
			__typeof__(arr) _nv_ = realloc((arr), _na_ * sizeof(*(arr))); \
			if (!_nv_)                                               \
				_r_ = -ENOMEM;                                   \
			else {                                                   \
				(arr) = _nv_;                                    \
				(alloc) = _na_;                                  \
			}                                                        \
		}                                                                \
		if (!_r_)                                                        \
			(arr)[(n)++] = (item);                                   \
		_r_;                                                             \
	})

static inline int negative_errno(void)
{
	return errno > 0 ? -errno : -EIO;
}

#endif /* LIBTIER_MACRO_H */
