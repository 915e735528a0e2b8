// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Process events through the proc connector (NETLINK_CONNECTOR, CN_IDX_PROC)
 * with libnl (socket, subscription, and nl_recv() with a check that the
 * kernel sent it): when a process execs a binary that an exe= rule matches,
 * the policy is applied to the process's cgroup right away.  On ENOBUFS (events
 * were lost) we resynchronise with a full reconcile, which reads every
 * cgroup's processes and their /proc/PID/exe.  Without the connector (no
 * CONFIG_PROC_EVENTS, no privilege) exe= rules are applied by the periodic
 * reconcile only; we say so once.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "tierd-log.h"
#include "tierd-manager.h"
#include "tierd-proc.h"

/* libnl's NLE_* codes back to errno, at the boundary. */
static int nle_to_errno(int nle)
{
	switch (nle < 0 ? -nle : nle) {
	case 0:
		return 0;
	case NLE_NOMEM:
		return -ENOMEM;
	case NLE_PERM:
		return -EPERM;
	case NLE_NOACCESS:
		return -EACCES;
	case NLE_AF_NOSUPPORT:
		return -EAFNOSUPPORT;
	case NLE_PROTO_MISMATCH:
		return -EPROTONOSUPPORT;
	case NLE_OPNOTSUPP:
		return -EOPNOTSUPP;
	case NLE_AGAIN:
		return -EAGAIN;
	case NLE_INTR:
		return -EINTR;
	case NLE_BAD_SOCK:
		return -EBADF;
	case NLE_BUSY:
		return -EBUSY;
	case NLE_INVAL:
		return -EINVAL;
	case NLE_MSGSIZE:
		return -EMSGSIZE;
	case NLE_NODEV:
		return -ENODEV;
	default:
		return -EIO;
	}
}

static int on_exec(struct manager *m, int pid)
{
	_cleanup_free_ char *exe = NULL, *cg = NULL, *reason = NULL;
	const struct tier_rule *rule;
	int r;

	if (!m->policy_has_exe)
		return 0;
	r = tier_pid_exe(m->ctx, pid, &exe);
	if (r == -ENOMEM)
		return log_oom();
	if (r == -EXDEV)
		return log_debug("PID %d: its executable is not the file of that name on the host "
				 "(another mount namespace): exe= rules do not apply", pid), 0;
	if (r < 0)
		return 0; /* gone already, or a kernel thread */
	/* The policy's exe index and compiled globs: most execs match nothing
	 * and cost one lookup. */
	r = tier_policy_match_exe(m->policy, exe, &rule);
	if (r == -ENOMEM)
		return log_oom();
	if (r <= 0)
		return 0;
	r = tier_pid_cgroup(m->ctx, pid, &cg);
	if (r == -ENOMEM)
		return log_oom();
	if (r < 0)
		return log_debug_errno(r, "PID %d (%s): cannot read its cgroup: %m, ignoring", pid,
				       exe),
		       0;
	log_debug("PID %d in %s executed %s (rule %s)", pid, cg, exe, tier_rule_name(rule));
	if (asprintf(&reason, "PID %d executed %s", pid, exe) < 0)
		return log_oom();
	return manager_cgroup_exec(m, cg, exe, reason);
}

/* The exec events of one datagram from the kernel. */
static int proc_datagram(struct manager *m, unsigned char *buf, int len)
{
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	int rem = len, r;

	for (; nlmsg_ok(h, rem); h = nlmsg_next(h, &rem)) {
		const struct cn_msg *cn;
		struct proc_event ev;
		size_t n;

		if (h->nlmsg_type == NLMSG_ERROR || h->nlmsg_type == NLMSG_NOOP)
			continue;
		if (nlmsg_datalen(h) < (int)(sizeof(*cn) + sizeof(ev.what)))
			continue;
		cn = nlmsg_data(h);
		if (cn->id.idx != CN_IDX_PROC || cn->id.val != CN_VAL_PROC)
			continue;
		/* The event sits at offset 36 of the datagram: copy it out
		 * rather than reading a misaligned struct. */
		n = (size_t)nlmsg_datalen(h) - sizeof(*cn);
		if (cn->len < n)
			n = cn->len;
		memset(&ev, 0, sizeof(ev));
		memcpy(&ev, cn->data, n < sizeof(ev) ? n : sizeof(ev));
		if (ev.what != PROC_EVENT_EXEC)
			continue;
		r = on_exec(m, ev.event_data.exec.process_tgid);
		if (r == -ENOMEM)
			return r;
	}
	return 0;
}

/*
 * Each datagram through libnl's nl_recv(): a buffer of the datagram's own
 * size (it peeks first), and the sender's address.  Only the kernel
 * (port 0) sends process events: anyone may send a datagram to tierd's
 * port, and a forged exec event would make tierd read some other process's
 * /proc/PID/exe and move its cgroup into a class.  Such datagrams are
 * dropped, counted and mentioned once.
 */
static int on_proc_event(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct manager *m = userdata;
	bool overrun = false;
	int r;

	for (;;) {
		_cleanup_free_ unsigned char *buf = NULL;
		struct sockaddr_nl nla = {};
		int n;

		n = nl_recv(m->proc.sk, &nla, &buf, NULL);
		if (n == -NLE_NOMEM && errno == ENOBUFS) {
			/* libnl says ENOBUFS (the socket overran) as NLE_NOMEM:
			 * errno tells the two apart */
			overrun = true;
			continue;
		}
		if (n == -NLE_NOMEM)
			return sd_event_exit(m->event, log_oom());
		if (n < 0) {
			r = nle_to_errno(n);
			if (r != -EAGAIN)
				log_warning_errno(r, "Failed to receive process events: %m, ignoring");
			break;
		}
		if (n == 0)
			break;
		if (nla.nl_pid != 0) {
			if (m->proc.n_foreign++ == 0)
				log_warning("Process event from netlink port %" PRIu32 ", not the "
					    "kernel: ignoring it and any other such", nla.nl_pid);
			continue;
		}
		r = proc_datagram(m, buf, n);
		if (r == -ENOMEM)
			return sd_event_exit(m->event, log_oom());
	}
	if (overrun) {
		log_debug("Process events were lost (ENOBUFS), resynchronising from /proc");
		if (m->policy_has_exe)
			manager_schedule_reconcile(m, "process events lost");
	}
	return 0;
}

static int send_listen(struct nl_sock *sk)
{
	enum proc_cn_mcast_op op = PROC_CN_MCAST_LISTEN;
	char req[sizeof(struct cn_msg) + sizeof(op)] __attribute__((aligned(8)));
	struct cn_msg *cn = (struct cn_msg *)req;
	struct nl_msg *msg;
	int r;

	memset(req, 0, sizeof(req));
	cn->id.idx = CN_IDX_PROC;
	cn->id.val = CN_VAL_PROC;
	cn->len = sizeof(op);
	memcpy(req + sizeof(*cn), &op, sizeof(op));
	msg = nlmsg_alloc_simple(NLMSG_DONE, 0);
	if (!msg)
		return -ENOMEM;
	r = nlmsg_append(msg, req, sizeof(req), NLMSG_ALIGNTO);
	if (r >= 0)
		r = nl_send_auto(sk, msg);
	nlmsg_free(msg);
	return r < 0 ? nle_to_errno(r) : 0;
}

int proc_connector_start(struct manager *m)
{
	struct nl_sock *sk;
	int r;

	sk = nl_socket_alloc();
	if (!sk)
		return log_oom();
	nl_socket_disable_seq_check(sk);
	/* nl_recv() peeks at each datagram and reads it into a buffer of its size */
	nl_socket_enable_msg_peek(sk);
	nl_join_groups(sk, CN_IDX_PROC);
	r = nle_to_errno(nl_connect(sk, NETLINK_CONNECTOR));
	if (r >= 0) {
		(void)nl_socket_set_buffer_size(sk, 4 * 1024 * 1024, 0);
		r = nl_socket_set_nonblocking(sk) < 0 ? -EIO : 0;
	}
	if (r >= 0)
		r = send_listen(sk);
	if (r < 0) {
		nl_socket_free(sk);
		if (r == -ENOMEM)
			return log_oom();
		log_notice_errno(r, "Process events (proc connector) unavailable: %m; exe= rules are "
				    "applied by the periodic reconcile only");
		return 0;
	}
	r = sd_event_add_io(m->event, &m->proc.source, nl_socket_get_fd(sk), EPOLLIN,
			    on_proc_event, m);
	if (r < 0) {
		nl_socket_free(sk);
		log_warning_errno(r, "Failed to watch process events: %m, ignoring");
		return 0;
	}
	(void)sd_event_source_set_description(m->proc.source, "proc-connector");
	m->proc.sk = sk;
	log_debug("Listening to process events (proc connector)");
	return 0;
}

void proc_connector_stop(struct manager *m)
{
	m->proc.source = sd_event_source_disable_unref(m->proc.source);
	if (m->proc.sk)
		nl_socket_free(m->proc.sk);
	m->proc.sk = NULL;
}
