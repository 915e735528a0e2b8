// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tierd logging.  Under systemd (stderr is the journal stream named by
 * $JOURNAL_STREAM) every record goes to the journal through sd_journal_sendv()
 * with MESSAGE, PRIORITY, the code location and, for records about a cgroup,
 * CGROUP=, CLASS=, RULE=, KNOB=, OLD=, NEW=.  Otherwise one line on stderr.
 *
 * Cgroup names and values come from the tree, which others write: a name may
 * hold a newline, an ESC sequence or bytes that are not UTF-8.  The message
 * and every field are escaped here, at the one sink (text_escape_buf()), so
 * a record is one line of printable UTF-8 on stderr and every journal field
 * stays text.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-journal.h>

#include "escape.h"
#include "tierd-log.h"

/* An escaped message: up to 4 bytes ("\\xff") per byte of the formatted one. */
#define LOG_LINE_MAX 2048
#define LOG_ESCAPED_MAX (4 * LOG_LINE_MAX)
#define LOG_CUT "[...]"

static enum log_target log_target = LOG_TARGET_STDERR;
static int log_max_level = LOG_INFO;

static bool stderr_is_journal(void)
{
	const char *e = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!e || sscanf(e, "%llu:%llu", &dev, &ino) != 2)
		return false;
	if (fstat(STDERR_FILENO, &st) < 0)
		return false;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

void log_open(enum log_target target)
{
	if (target == LOG_TARGET_AUTO)
		target = stderr_is_journal() ? LOG_TARGET_JOURNAL : LOG_TARGET_STDERR;
	log_target = target;
}

enum log_target log_get_target(void)
{
	return log_target;
}

void log_set_max_level(int level)
{
	if (level < LOG_EMERG)
		level = LOG_EMERG;
	if (level > LOG_DEBUG)
		level = LOG_DEBUG;
	log_max_level = level;
}

int log_get_max_level(void)
{
	return log_max_level;
}

/* Append "NAME=value" to iov (value may be NULL: skipped), escaped if asked. */
static int push_field(struct iovec *iov, int n, char **bufs, const char *name, const char *value,
		      bool escape)
{
	_cleanup_free_ char *e = NULL;
	char *s;

	if (!value)
		return n;
	if (escape) {
		e = text_escape(value);
		if (!e)
			return n;
		value = e;
	}
	if (asprintf(&s, "%s=%s", name, value) < 0)
		return n;
	bufs[n] = s;
	iov[n].iov_base = s;
	iov[n].iov_len = strlen(s);
	return n + 1;
}

static void write_record(int level, const struct log_fields *f, const char *file, int line,
			 const char *func, const char *raw)
{
	static char msg[LOG_ESCAPED_MAX];

	text_escape_buf(raw, msg, sizeof(msg));
	if (log_target == LOG_TARGET_JOURNAL) {
		struct iovec iov[16];
		char *bufs[16] = { 0 };
		char prio[8], lbuf[16];
		int n = 0;

		snprintf(prio, sizeof(prio), "%d", level);
		snprintf(lbuf, sizeof(lbuf), "%d", line);
		n = push_field(iov, n, bufs, "MESSAGE", msg, false);
		n = push_field(iov, n, bufs, "PRIORITY", prio, false);
		n = push_field(iov, n, bufs, "SYSLOG_IDENTIFIER", "tierd", false);
		n = push_field(iov, n, bufs, "CODE_FILE", file, false);
		n = push_field(iov, n, bufs, "CODE_LINE", lbuf, false);
		n = push_field(iov, n, bufs, "CODE_FUNC", func, false);
		if (f) {
			n = push_field(iov, n, bufs, "CGROUP", f->cgroup, true);
			n = push_field(iov, n, bufs, "CLASS", f->class, true);
			n = push_field(iov, n, bufs, "RULE", f->rule, true);
			n = push_field(iov, n, bufs, "KNOB", f->knob, true);
			n = push_field(iov, n, bufs, "OLD", f->old, true);
			n = push_field(iov, n, bufs, "NEW", f->new, true);
		}
		if (n > 0 && sd_journal_sendv(iov, n) >= 0) {
			for (int i = 0; i < n; i++)
				free(bufs[i]);
			return;
		}
		for (int i = 0; i < n; i++)
			free(bufs[i]);
		/* journald gone: fall through to stderr */
	}
	fprintf(stderr, "tierd: %s\n", msg);
}

_printf_(7, 0) static int log_emit(int level, int error, const struct log_fields *f, const char *file, int line,
		    const char *func, const char *format, va_list ap)
{
	char buf[LOG_LINE_MAX];
	int saved = errno, n;
	va_list aq;

	if (error < 0)
		error = -error;
	if (level > log_max_level) {
		errno = saved;
		return -error;
	}
	errno = error;
	va_copy(aq, ap);
	n = vsnprintf(buf, sizeof(buf), format, ap);
	if (n >= (int)sizeof(buf)) {
		/* Too long (a path of a deep subtree): keep its head and its tail,
		 * where the reason is, and cut the middle. */
		_cleanup_free_ char *all = NULL;
		const size_t keep = (sizeof(buf) - sizeof(LOG_CUT)) / 2;

		errno = error;
		if (vasprintf(&all, format, aq) >= 0) {
			size_t l = strlen(all);

			memcpy(buf, all, keep);
			memcpy(buf + keep, LOG_CUT, sizeof(LOG_CUT) - 1);
			memcpy(buf + keep + sizeof(LOG_CUT) - 1, all + l - keep, keep);
			buf[2 * keep + sizeof(LOG_CUT) - 1] = '\0';
		}
	}
	va_end(aq);
	write_record(level, f, file, line, func, buf);
	errno = saved;
	return -error;
}

int log_internalv(int level, int error, const char *file, int line, const char *func,
		  const char *format, va_list ap)
{
	return log_emit(level, error, NULL, file, line, func, format, ap);
}

int log_internal(int level, int error, const char *file, int line, const char *func,
		 const char *format, ...)
{
	va_list ap;
	int r;

	va_start(ap, format);
	r = log_emit(level, error, NULL, file, line, func, format, ap);
	va_end(ap);
	return r;
}

int log_fields_internal(int level, int error, const struct log_fields *f, const char *file,
			int line, const char *func, const char *format, ...)
{
	va_list ap;
	int r;

	va_start(ap, format);
	r = log_emit(level, error, f, file, line, func, format, ap);
	va_end(ap);
	return r;
}

static uint64_t monotonic_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000ull + (uint64_t)ts.tv_nsec / 1000;
}

bool ratelimit_below(struct ratelimit *rl, uint64_t now_usec, unsigned *ret_suppressed)
{
	if (ret_suppressed)
		*ret_suppressed = 0;
	if (rl->n == 0 || now_usec < rl->begin_usec || now_usec - rl->begin_usec >= rl->interval_usec) {
		if (ret_suppressed)
			*ret_suppressed = rl->suppressed;
		rl->begin_usec = now_usec;
		rl->n = 1;
		rl->suppressed = 0;
		return true;
	}
	if (rl->n < rl->burst) {
		rl->n++;
		return true;
	}
	rl->suppressed++;
	return false;
}

/* A record through rl, or none: returns -abs(error) either way. */
_printf_(7, 0) static int log_ratelimitv(struct ratelimit *rl, int level, int error,
					 const char *file, int line, const char *func,
					 const char *format, va_list ap)
{
	unsigned suppressed;

	if (error < 0)
		error = -error;
	if (level > log_max_level)
		return -error;
	if (!ratelimit_below(rl, monotonic_usec(), &suppressed))
		return -error;
	if (suppressed > 0)
		log_internal(level, 0, file, line, func,
			     "(%u similar message%s suppressed in the last %llu s)", suppressed,
			     suppressed == 1 ? "" : "s",
			     (unsigned long long)(rl->interval_usec / 1000000));
	return log_emit(level, error, NULL, file, line, func, format, ap);
}

int log_ratelimit_internal(struct ratelimit *rl, int level, int error, const char *file, int line,
			   const char *func, const char *format, ...)
{
	va_list ap;
	int r;

	va_start(ap, format);
	r = log_ratelimitv(rl, level, error, file, line, func, format, ap);
	va_end(ap);
	return r;
}

/* Call sites of the library seen so far; a full table shares the last slot. */
#define SITES_MAX 128

static struct log_site {
	const char *file;
	int line;
	struct ratelimit rl;
} sites[SITES_MAX];

static struct ratelimit *site_ratelimit(const char *file, int line)
{
	size_t h = ((size_t)(uintptr_t)file * 31u + (size_t)line) % (SITES_MAX - 1);

	for (size_t i = 0; i < SITES_MAX - 1; i++) {
		struct log_site *s = &sites[(h + i) % (SITES_MAX - 1)];

		if (!s->file) {
			s->file = file;
			s->line = line;
			s->rl = (struct ratelimit)RATELIMIT_INIT(LOG_RATELIMIT_INTERVAL_USEC,
								 LOG_RATELIMIT_BURST);
		}
		if (s->file == file && s->line == line)
			return &s->rl;
	}
	sites[SITES_MAX - 1].rl.interval_usec = LOG_RATELIMIT_INTERVAL_USEC;
	sites[SITES_MAX - 1].rl.burst = LOG_RATELIMIT_BURST;
	return &sites[SITES_MAX - 1].rl;
}

int log_site_ratelimitedv(int level, int error, const char *file, int line, const char *func,
			  const char *format, va_list ap)
{
	if (level >= LOG_DEBUG)
		return log_emit(level, error, NULL, file, line, func, format, ap);
	return log_ratelimitv(site_ratelimit(file, line), level, error, file, line, func, format,
			      ap);
}
