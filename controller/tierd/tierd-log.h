/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tierd logging: structured records to the journal when systemd connected
 * our stderr to it, one readable line on stderr otherwise.
 */
#ifndef TIERD_LOG_H
#define TIERD_LOG_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <syslog.h>

#include "macro.h"

enum log_target {
	LOG_TARGET_AUTO = 0,	/* journal if JOURNAL_STREAM matches stderr */
	LOG_TARGET_STDERR,
	LOG_TARGET_JOURNAL,
};

/* Extra journal fields of a record about one cgroup; any may be NULL. */
struct log_fields {
	const char *cgroup;
	const char *class;
	const char *rule;
	const char *knob;
	const char *old;
	const char *new;
};

void log_open(enum log_target target);
enum log_target log_get_target(void);
void log_set_max_level(int level);
int log_get_max_level(void);

/* Returns -abs(error) (or 0 if error is 0), so callers can log and return in
 * one statement.  errno is set to abs(error) while formatting, for %m. */
_printf_(6, 7) int log_internal(int level, int error, const char *file, int line,
				const char *func, const char *format, ...);
_printf_(6, 0) int log_internalv(int level, int error, const char *file, int line,
				 const char *func, const char *format, va_list ap);
_printf_(7, 8) int log_fields_internal(int level, int error, const struct log_fields *f,
				       const char *file, int line, const char *func,
				       const char *format, ...);

#define log_full_errno(level, error, ...) \
	log_internal((level), (error), __FILE__, __LINE__, __func__, __VA_ARGS__)
#define log_full(level, ...) log_full_errno((level), 0, __VA_ARGS__)

#define log_debug(...) log_full(LOG_DEBUG, __VA_ARGS__)
#define log_info(...) log_full(LOG_INFO, __VA_ARGS__)
#define log_notice(...) log_full(LOG_NOTICE, __VA_ARGS__)
#define log_warning(...) log_full(LOG_WARNING, __VA_ARGS__)
#define log_error(...) log_full(LOG_ERR, __VA_ARGS__)

#define log_debug_errno(e, ...) log_full_errno(LOG_DEBUG, (e), __VA_ARGS__)
#define log_info_errno(e, ...) log_full_errno(LOG_INFO, (e), __VA_ARGS__)
#define log_notice_errno(e, ...) log_full_errno(LOG_NOTICE, (e), __VA_ARGS__)
#define log_warning_errno(e, ...) log_full_errno(LOG_WARNING, (e), __VA_ARGS__)
#define log_error_errno(e, ...) log_full_errno(LOG_ERR, (e), __VA_ARGS__)

#define log_oom() log_full_errno(LOG_ERR, ENOMEM, "Out of memory.")

/*
 * Rate limiting, for messages that something outside tierd can make repeat
 * (a hostile subtree, a flood of events): at most burst records per
 * interval; the first record after a suppressed stretch says how many were
 * dropped.
 */
struct ratelimit {
	uint64_t interval_usec;
	unsigned burst;
	uint64_t begin_usec;
	unsigned n;
	unsigned suppressed;
};

#define LOG_RATELIMIT_INTERVAL_USEC (10 * 60 * 1000000ull)
#define LOG_RATELIMIT_BURST 5
#define RATELIMIT_INIT(interval, b) { .interval_usec = (interval), .burst = (b) }

/* May one more record go out now?  *ret_suppressed (may be NULL): how many
 * were refused since the last one that went out, when this one may. */
bool ratelimit_below(struct ratelimit *rl, uint64_t now_usec, unsigned *ret_suppressed);

_printf_(7, 8) int log_ratelimit_internal(struct ratelimit *rl, int level, int error,
					  const char *file, int line, const char *func,
					  const char *format, ...);
/*
 * For libtier's log hook: records rate-limited by their call site (file and
 * line of the library), LOG_RATELIMIT_BURST per LOG_RATELIMIT_INTERVAL_USEC
 * each; debug records are not limited.
 */
_printf_(6, 0) int log_site_ratelimitedv(int level, int error, const char *file, int line,
					 const char *func, const char *format, va_list ap);

/* log_full_errno(), but at most LOG_RATELIMIT_BURST records per interval from this call site. */
#define log_ratelimit_errno(level, error, ...)                                                 \
	({                                                                                     \
		static struct ratelimit _rl_ =                                                 \
			RATELIMIT_INIT(LOG_RATELIMIT_INTERVAL_USEC, LOG_RATELIMIT_BURST);      \
		log_ratelimit_internal(&_rl_, (level), (error), __FILE__, __LINE__, __func__, \
				       __VA_ARGS__);                                           \
	})
#define log_ratelimit(level, ...) log_ratelimit_errno((level), 0, __VA_ARGS__)

#define log_cgroup(level, fields, ...) \
	log_fields_internal((level), 0, (fields), __FILE__, __LINE__, __func__, __VA_ARGS__)
#define log_cgroup_errno(level, error, fields, ...) \
	log_fields_internal((level), (error), (fields), __FILE__, __LINE__, __func__, __VA_ARGS__)

#endif
