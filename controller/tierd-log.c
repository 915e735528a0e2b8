// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tierd logging.  Under systemd (stderr is the journal stream named by
 * $JOURNAL_STREAM) every record goes to the journal through sd_journal_sendv()
 * with MESSAGE, PRIORITY, the code location and, for records about a cgroup,
 * CGROUP=, CLASS=, RULE=, KNOB=, OLD=, NEW=.  Otherwise one line on stderr.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <systemd/sd-journal.h>

#include "tierd-log.h"

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

/* Append "NAME=value" to iov (value may be NULL: skipped). */
static int push_field(struct iovec *iov, int n, char **bufs, const char *name, const char *value)
{
	char *s;

	if (!value)
		return n;
	if (asprintf(&s, "%s=%s", name, value) < 0)
		return n;
	bufs[n] = s;
	iov[n].iov_base = s;
	iov[n].iov_len = strlen(s);
	return n + 1;
}

static void write_record(int level, const struct log_fields *f, const char *file, int line,
			 const char *func, const char *msg)
{
	if (log_target == LOG_TARGET_JOURNAL) {
		struct iovec iov[16];
		char *bufs[16] = { 0 };
		char prio[8], lbuf[16];
		int n = 0;

		snprintf(prio, sizeof(prio), "%d", level);
		snprintf(lbuf, sizeof(lbuf), "%d", line);
		n = push_field(iov, n, bufs, "MESSAGE", msg);
		n = push_field(iov, n, bufs, "PRIORITY", prio);
		n = push_field(iov, n, bufs, "SYSLOG_IDENTIFIER", "tierd");
		n = push_field(iov, n, bufs, "CODE_FILE", file);
		n = push_field(iov, n, bufs, "CODE_LINE", lbuf);
		n = push_field(iov, n, bufs, "CODE_FUNC", func);
		if (f) {
			n = push_field(iov, n, bufs, "CGROUP", f->cgroup);
			n = push_field(iov, n, bufs, "CLASS", f->class);
			n = push_field(iov, n, bufs, "RULE", f->rule);
			n = push_field(iov, n, bufs, "KNOB", f->knob);
			n = push_field(iov, n, bufs, "OLD", f->old);
			n = push_field(iov, n, bufs, "NEW", f->new);
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
	char buf[2048];
	int saved = errno;

	if (error < 0)
		error = -error;
	if (level > log_max_level) {
		errno = saved;
		return -error;
	}
	errno = error;
	vsnprintf(buf, sizeof(buf), format, ap); /* truncation of a log line is fine */
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
