// SPDX-License-Identifier: GPL-2.0
/*
 * fipc waiting: poll the duplex ring's next slot with a chosen method,
 * then fall back to a caller-provided sleep hook (an event channel, a
 * wait queue).
 */
#include <fipc/fipc_duplex.h>
#include "fipc_cpu.h"

static const char * const fipc_wait_names[FIPC_WAIT_NR_METHODS] = {
	[FIPC_WAIT_PAUSE] = "pause",
	[FIPC_WAIT_MWAITX] = "mwaitx",
	[FIPC_WAIT_UMWAIT] = "umwait",
	[FIPC_WAIT_MWAIT] = "mwait",
};

/**
 * fipc_wait_method_name() - printable name of a wait method
 * @method: the method
 *
 * Return: a static string, "invalid" for an unknown method.
 */
const char *fipc_wait_method_name(enum fipc_wait_method method)
{
	if ((unsigned int)method >= FIPC_WAIT_NR_METHODS)
		return "invalid";
	return fipc_wait_names[method];
}
EXPORT_SYMBOL_GPL(fipc_wait_method_name);

/**
 * fipc_wait_method_usable() - can this CPU, at this privilege, use a method
 * @method: the method
 *
 * Return: true if @method works here; FIPC_WAIT_PAUSE always does.
 */
bool fipc_wait_method_usable(enum fipc_wait_method method)
{
	switch (method) {
	case FIPC_WAIT_PAUSE:
		return true;
	case FIPC_WAIT_MWAITX:
		return fipc_cpu_has_mwaitx();
	case FIPC_WAIT_UMWAIT:
		return fipc_cpu_has_umwait();
	case FIPC_WAIT_MWAIT:
		return fipc_cpu_has_mwait();
	default:
		return false;
	}
}
EXPORT_SYMBOL_GPL(fipc_wait_method_usable);

/**
 * fipc_wait_best_method() - the lowest-power method usable here
 *
 * Return: MWAIT where ring 0 has it, else MWAITX or UMWAIT, else PAUSE.
 */
enum fipc_wait_method fipc_wait_best_method(void)
{
	static const enum fipc_wait_method order[] = {
		FIPC_WAIT_MWAIT, FIPC_WAIT_MWAITX, FIPC_WAIT_UMWAIT,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(order); i++)
		if (fipc_wait_method_usable(order[i]))
			return order[i];
	return FIPC_WAIT_PAUSE;
}
EXPORT_SYMBOL_GPL(fipc_wait_best_method);

/**
 * fipc_waiter_init() - set up a wait strategy
 * @w: the waiter
 * @method: how to wait between polls
 * @spin_limit: empty polls before @sleep; 0 polls forever
 * @sleep: hook called after @spin_limit empty polls, or NULL to give up
 *	with -ETIMEDOUT instead
 * @arg: argument for @sleep
 *
 * Return: 0, or -EOPNOTSUPP if @method cannot be used on this CPU.
 */
int fipc_waiter_init(struct fipc_waiter *w, enum fipc_wait_method method,
		     unsigned int spin_limit, int (*sleep)(void *arg),
		     void *arg)
{
	if (!fipc_wait_method_usable(method))
		return -EOPNOTSUPP;
	w->method = method;
	w->spin_limit = spin_limit;
	w->sleep = sleep;
	w->arg = arg;
	w->empty_polls = 0;
	w->sleeps = 0;
	return 0;
}
EXPORT_SYMBOL_GPL(fipc_waiter_init);

/* One bounded wait while the slot's last word still holds @seen. */
static void fipc_wait_once(enum fipc_wait_method method,
			   const fipc_last_t *flag, fipc_last_t seen)
{
#if FIPC_HAVE_X86_WAIT
	/*
	 * Arm the monitor, then look again: a store that landed before the
	 * monitor was armed would otherwise not wake us.
	 */
	switch (method) {
	case FIPC_WAIT_MWAITX:
		fipc_cpu_monitorx(flag);
		if (READ_ONCE(*flag) == seen)
			fipc_cpu_mwaitx(FIPC_HW_WAIT_CYCLES);
		return;
	case FIPC_WAIT_UMWAIT:
		fipc_cpu_umonitor(flag);
		if (READ_ONCE(*flag) == seen)
			fipc_cpu_umwait(fipc_cpu_tsc() + FIPC_HW_WAIT_CYCLES);
		return;
#ifdef __KERNEL__
	case FIPC_WAIT_MWAIT:
		/* Any interrupt, the tick included, ends the wait. */
		__monitor(flag, 0, 0);
		/* The kernel's __monitor() has no "memory" clobber. */
		barrier();
		if (READ_ONCE(*flag) == seen)
			__mwait(0, 0);
		return;
#endif
	default:
		break;
	}
#endif
	cpu_relax();
}

/*
 * The wait loop shared by both ends of the duplex ring, inlined into
 * each caller with its own @poll and @before_sleep.  @poll returns 1
 * when the caller should call its take function (a message, or a flag
 * that function will reject), a negative error to stop, or 0 "not yet",
 * with the flag to watch and the value it holds in *@flag and *@seen.
 * @before_sleep (if not NULL) runs before the sleep hook and before
 * giving up, so that whatever the peer may be waiting for (positions) is
 * handed back.
 */
static __always_inline int
fipc_wait_loop(struct fipc_waiter *w, void *ctx,
	       int (*poll)(void *ctx, const fipc_last_t **flag,
			   fipc_last_t *seen),
	       void (*before_sleep)(void *ctx))
{
	unsigned int spins = 0;
	const fipc_last_t *flag;
	fipc_last_t seen;
	int ret;

	for (;;) {
		ret = poll(ctx, &flag, &seen);
		if (ret)
			return ret < 0 ? ret : 0;
		w->empty_polls++;
		if (w->spin_limit && ++spins >= w->spin_limit) {
			spins = 0;
			if (before_sleep)
				before_sleep(ctx);
			if (!w->sleep)
				return -ETIMEDOUT;
			w->sleeps++;
			ret = w->sleep(w->arg);
			if (ret)
				return ret;
			continue;
		}
		fipc_wait_once(w->method, flag, seen);
	}
}

static int fipc_wait_reply_poll(void *ctx, const fipc_last_t **flag,
				fipc_last_t *seen)
{
	struct fipc_duplex_client *c = ctx;
	const fipc_last_t *at = fipc_slot_last(&c->slots[c->done & c->mask]);
	u32 span;

	if (unlikely(c->error))
		return c->error;
	*seen = READ_ONCE(*at);
	if (fipc_duplex_client_look(c, fipc_last_flag(*seen), &span) !=
	    FIPC_DUPLEX_FOUND_NOTHING)
		return 1;
	*flag = at;
	return 0;
}

/**
 * fipc_duplex_client_wait() - wait until a reply is at the done cursor
 * @c: the client
 * @w: the wait strategy
 *
 * Watches the slot at the done cursor until it holds something other
 * than the client's own request (or, with nothing outstanding, what it
 * held one lap ago): a reply, an acknowledgment, or a flag that
 * fipc_duplex_take_reply() will reject.
 *
 * Return: 0 when fipc_duplex_take_reply() should be called; -EPROTO if
 * the ring is broken; -ETIMEDOUT after @w->spin_limit empty polls with no
 * sleep hook; or the sleep hook's negative return.
 */
int fipc_duplex_client_wait(struct fipc_duplex_client *c,
			    struct fipc_waiter *w)
{
	return fipc_wait_loop(w, c, fipc_wait_reply_poll, NULL);
}
EXPORT_SYMBOL_GPL(fipc_duplex_client_wait);

static int fipc_wait_request_poll(void *ctx, const fipc_last_t **flag,
				  fipc_last_t *seen)
{
	struct fipc_duplex_server *s = ctx;
	const fipc_last_t *at = fipc_slot_last(&s->slots[s->read & s->mask]);

	if (unlikely(s->error))
		return s->error;
	*seen = READ_ONCE(*at);
	if (!fipc_duplex_server_idle(s, fipc_last_flag(*seen)))
		return 1;
	*flag = at;
	return 0;
}

static void fipc_wait_request_before_sleep(void *ctx)
{
	fipc_duplex_server_flush(ctx);
}

/**
 * fipc_duplex_server_wait() - wait until a request is at the read cursor
 * @s: the server
 * @w: the wait strategy
 *
 * Watches the slot at the read cursor until it holds a request, or a
 * flag that fipc_duplex_take_request() will reject.  Before calling the
 * sleep hook (or giving up), every position no unanswered call needs is
 * acknowledged, so the client is never blocked by a sleeping server.
 *
 * Return: 0 when fipc_duplex_take_request() should be called; -EPROTO if
 * the ring is broken; -ETIMEDOUT after @w->spin_limit empty polls with no
 * sleep hook; or the sleep hook's negative return.
 */
int fipc_duplex_server_wait(struct fipc_duplex_server *s,
			    struct fipc_waiter *w)
{
	return fipc_wait_loop(w, s, fipc_wait_request_poll,
			      fipc_wait_request_before_sleep);
}
EXPORT_SYMBOL_GPL(fipc_duplex_server_wait);
