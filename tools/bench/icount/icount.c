// SPDX-License-Identifier: GPL-2.0
/*
 * icount - a QEMU TCG plugin that counts the instructions each vCPU of an
 * x86-64 guest executes, kernel and user apart, and writes the counts out
 * at points the guest, or the host, marks.
 *
 *   qemu-system-x86_64 -accel tcg \
 *     -plugin build/icount/icount.so,out=FILE[,prof=PFILE[,prof_vcpu=N]][,ctl=CTL] ...
 *
 * Counting.  At translation a block is kernel code when its first
 * instruction's guest virtual address is at or above ICOUNT_KERNEL_BASE,
 * user code below; a block never spans the two halves.  One inline add of
 * the block's instruction count to the executing vCPU's kernel or user
 * counter (a scoreboard entry) is all a block costs when it runs.  The add
 * happens on entry, so a block left early (a fault, an exception) counts
 * in full; the instructions it did not execute are counted again when the
 * guest resumes at the faulting one.
 *
 * Marks.  The guest executes "xchg %bx,%bx" (66 87 db), a no-op.  Each
 * instance gets an execution callback at translation, which appends to
 * FILE
 *   mark SEQ vcpu IDX k0=N u0=N k1=N u1=N ...
 * with every vCPU's totals.  SEQ numbers marks from 0 in the order they
 * are written.  The marking vCPU's count is exact: it includes the mark
 * instruction and nothing after it (the rest of its block, already added
 * on entry, is taken off).  Another vCPU's counts are read while it runs
 * and include all of the block it is in: at most one block (512
 * instructions) more than it has executed.  At exit one line
 *   exit k0=N u0=N ...
 * gives the totals.  The counts are by address, not privilege level.
 *
 * Host marks.  With ctl=CTL the plugin makes CTL a FIFO (replacing a stale
 * FIFO there, refusing any other file) and a thread reads lines from it,
 * reopening it at each end of file, so that writers may take turns:
 *   mark [LABEL]
 * writes a mark as the guest's instruction does, with the same sequence
 * numbers and, with prof=, a profile window, but with "host" for IDX:
 *   mark SEQ vcpu host k0=N u0=N ...
 * Every vCPU's counts are then read while it runs, as another vCPU's are
 * at a guest mark: at most one block (512 instructions) ahead of what it
 * has executed, never behind.  LABEL is one word of at most 64 letters,
 * digits and "._:-"; it goes only into the acknowledgment.  After writing
 * the mark the thread opens the FIFO CTL.ack (made beside CTL) for writing
 * without blocking and, if a reader has it open, writes
 *   ack SEQ [LABEL]
 * or, for a line it did not take,
 *   error LINE
 * A writer that wants to know its mark was taken opens CTL.ack for
 * reading first (O_RDWR or O_NONBLOCK, so as not to wait for the plugin),
 * writes its line to CTL and reads the ack; one writer at a time (a
 * writer holds flock(LOCK_EX) on CTL.ack while it marks).  Without a
 * reader of CTL.ack the mark is written all the same.  Host marks are
 * meant for a running guest: one sent before the vCPUs exist counts
 * nothing.  Both FIFOs are removed at exit.
 *
 * Profile.  With prof=PFILE (and prof_vcpu=N, default 1) every block gets
 * a counter slot of its own, keyed by its address and length, added to
 * inline like the totals; at each mark PFILE gets what vCPU N executed
 * since the mark before, block by block:
 *   window SEQ
 *   ADDR INSNS NINSNS          (hex address, block length, instructions)
 * so that a window's instructions can be given to the functions whose
 * blocks they are (tools/bench/icount/icount-prof.py, with the guest's
 * /proc/kallsyms).  A block's slot counts it in full on entry, as the
 * totals do.  Past ICOUNT_PROF_SLOTS distinct blocks, the rest share
 * slot 0, printed with address 0.
 */

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define ICOUNT_KERNEL_BASE	0xffff800000000000ULL

/* The mark: xchg %bx,%bx. */
static const uint8_t icount_mark_insn[] = { 0x66, 0x87, 0xdb };

/*
 * One vCPU's counters, written only by that vCPU's inline ops; read by any
 * vCPU at a mark and at exit.  Padded to a cache line so that vCPUs never
 * share a line (the scoreboard places entries back to back).
 */
struct icount_vcpu {
	uint64_t kernel;
	uint64_t user;
	uint8_t pad[48];
};

static struct qemu_plugin_scoreboard *icount_sb;
static qemu_plugin_u64 icount_kernel;
static qemu_plugin_u64 icount_user;

/*
 * The profile: one scoreboard whose element, per vCPU, is an array of
 * ICOUNT_PROF_SLOTS counters.  prof_lock guards the slot table (blocks
 * are translated on every vCPU's thread); the counters themselves are
 * only added to inline and read at marks, under icount_lock.
 */
#define ICOUNT_PROF_SLOTS	(1U << 20)

struct icount_slot {
	uint64_t vaddr;
	uint64_t ninsns;
};

static struct qemu_plugin_scoreboard *prof_sb;
static pthread_mutex_t prof_lock = PTHREAD_MUTEX_INITIALIZER;
static GHashTable *prof_index;		/* (vaddr, ninsns) -> slot */
static struct icount_slot *prof_slots;	/* slot -> its block */
static uint64_t *prof_prev;		/* each slot's count at the last mark */
static unsigned int prof_nslots = 1;	/* slot 0: the overflow */
static unsigned int prof_vcpu = 1;
static FILE *prof_out;

/* icount_lock guards icount_out and icount_seq. */
static pthread_mutex_t icount_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *icount_out;
static uint64_t icount_seq;

/* Host marks: the control FIFO, its acknowledgment FIFO and their reader. */
#define ICOUNT_LABEL_MAX	64
#define ICOUNT_HOST_VCPU	UINT_MAX

static char *ctl_path;
static char *ctl_ack_path;
static pthread_t ctl_thread;

/*
 * A mark's callback data: how many instructions of its block follow it,
 * and whether the block is kernel code.  A block has at most 512.
 */
#define ICOUNT_MARK_KERNEL	1UL
#define ICOUNT_MARK_TAIL_SHIFT	1

/*
 * Every vCPU's counts, less @tail instructions from @vcpu's kernel or user
 * count.  Called with icount_lock held.
 */
static void icount_print_counts(unsigned int vcpu, uint64_t tail, bool kernel)
{
	int n = qemu_plugin_num_vcpus();
	int i;

	for (i = 0; i < n; i++) {
		uint64_t k = qemu_plugin_u64_get(icount_kernel, i);
		uint64_t u = qemu_plugin_u64_get(icount_user, i);

		if ((unsigned int)i == vcpu) {
			if (kernel)
				k -= tail;
			else
				u -= tail;
		}
		fprintf(icount_out, " k%d=%" PRIu64 " u%d=%" PRIu64, i, k, i, u);
	}
	fputc('\n', icount_out);
}

static qemu_plugin_u64 prof_entry(unsigned int slot)
{
	qemu_plugin_u64 e = { prof_sb, (size_t)slot * sizeof(uint64_t) };

	return e;
}

/* Called with icount_lock held, before the mark's sequence number moves on. */
static void prof_print_window(void)
{
	unsigned int i, n;

	if (!prof_out || prof_vcpu >= (unsigned int)qemu_plugin_num_vcpus())
		return;
	pthread_mutex_lock(&prof_lock);
	n = prof_nslots;
	pthread_mutex_unlock(&prof_lock);
	fprintf(prof_out, "window %" PRIu64 "\n", icount_seq);
	for (i = 0; i < n; i++) {
		uint64_t c = qemu_plugin_u64_get(prof_entry(i), prof_vcpu);

		if (c == prof_prev[i])
			continue;
		fprintf(prof_out, "%" PRIx64 " %" PRIu64 " %" PRIu64 "\n",
			prof_slots[i].vaddr, prof_slots[i].ninsns, c - prof_prev[i]);
		prof_prev[i] = c;
	}
	fflush(prof_out);
}

/* Called with icount_lock held: vcpu ICOUNT_HOST_VCPU for a host mark. */
static uint64_t icount_write_mark(unsigned int vcpu, uint64_t tail, bool kernel)
{
	uint64_t seq;

	prof_print_window();
	seq = icount_seq++;
	if (vcpu == ICOUNT_HOST_VCPU)
		fprintf(icount_out, "mark %" PRIu64 " vcpu host", seq);
	else
		fprintf(icount_out, "mark %" PRIu64 " vcpu %u", seq, vcpu);
	icount_print_counts(vcpu, tail, kernel);
	fflush(icount_out);
	return seq;
}

static void icount_mark(unsigned int vcpu, void *data)
{
	uintptr_t v = (uintptr_t)data;

	pthread_mutex_lock(&icount_lock);
	if (!icount_out)
		goto out;
	icount_write_mark(vcpu, v >> ICOUNT_MARK_TAIL_SHIFT,
			  v & ICOUNT_MARK_KERNEL);
out:
	pthread_mutex_unlock(&icount_lock);
}

/* Write @fmt's line to CTL.ack if a writer is reading it; drop it if not. */
static void ctl_ack(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
static void ctl_ack(const char *fmt, ...)
{
	char line[PIPE_BUF];
	va_list ap;
	int fd, n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(line))
		return;
	fd = open(ctl_ack_path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return;			/* ENXIO: nobody waits for it */
	/* at most PIPE_BUF bytes: written whole or not at all */
	if (write(fd, line, n) != n)
		fprintf(stderr, "icount: %s: ack lost: %s\n", ctl_ack_path,
			strerror(errno));
	close(fd);
}

static bool ctl_label_ok(const char *label)
{
	size_t n = strlen(label);

	if (n > ICOUNT_LABEL_MAX)
		return false;
	for (; *label; label++)
		if (!isalnum((unsigned char)*label) && !strchr("._:-", *label))
			return false;
	return true;
}

/* One line from CTL, without its newline. */
static void ctl_command(char *line)
{
	char *label = NULL;
	uint64_t seq;

	if (!strncmp(line, "mark", 4) && (!line[4] || line[4] == ' ')) {
		label = line + 4;
		while (*label == ' ')
			label++;
		if (!ctl_label_ok(label))
			label = NULL;
	}
	if (!label) {
		fprintf(stderr, "icount: %s: not a command: '%s'\n", ctl_path, line);
		ctl_ack("error %.200s\n", line);
		return;
	}
	pthread_mutex_lock(&icount_lock);
	if (!icount_out) {
		pthread_mutex_unlock(&icount_lock);
		return;
	}
	seq = icount_write_mark(ICOUNT_HOST_VCPU, 0, false);
	pthread_mutex_unlock(&icount_lock);
	ctl_ack("ack %" PRIu64 "%s%s\n", seq, *label ? " " : "", label);
}

/* The host marks' thread: CTL's lines, one writer after another. */
static void *ctl_fn(void *arg)
{
	size_t cap = 0;
	char *line = NULL;
	ssize_t n;
	FILE *f;

	for (;;) {
		/* blocks until a writer opens it */
		f = fopen(ctl_path, "re");
		if (!f && errno == EINTR)
			continue;
		if (!f) {
			fprintf(stderr, "icount: %s: %s\n", ctl_path, strerror(errno));
			return NULL;
		}
		while ((n = getline(&line, &cap, f)) > 0) {
			if (line[n - 1] == '\n')
				line[--n] = 0;
			ctl_command(line);
		}
		fclose(f);
	}
	return NULL;
}

/* Make @path a FIFO: a stale FIFO there is replaced, anything else refused. */
static int ctl_mkfifo(const char *path)
{
	struct stat st;

	if (!lstat(path, &st)) {
		if (!S_ISFIFO(st.st_mode)) {
			fprintf(stderr, "icount: %s exists and is not a FIFO\n", path);
			return -1;
		}
		unlink(path);
	}
	if (mkfifo(path, 0600)) {
		fprintf(stderr, "icount: mkfifo %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int ctl_start(const char *path)
{
	sigset_t all, old;

	ctl_path = strdup(path);
	ctl_ack_path = g_strdup_printf("%s.ack", path);
	if (!ctl_path || ctl_mkfifo(ctl_path) || ctl_mkfifo(ctl_ack_path))
		return -1;
	/* QEMU's signals are for its own threads: block them all in this one */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	errno = pthread_create(&ctl_thread, NULL, ctl_fn, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (errno) {
		fprintf(stderr, "icount: ctl thread: %s\n", strerror(errno));
		return -1;
	}
	pthread_detach(ctl_thread);
	return 0;
}

/* The block's profile slot: its own, or 0 once they are all taken. */
static unsigned int prof_slot(uint64_t vaddr, size_t n)
{
	/* a block has at most 512 instructions: 10 bits for its length */
	gpointer key = GSIZE_TO_POINTER(vaddr << 10 ^ n);
	unsigned int slot;

	pthread_mutex_lock(&prof_lock);
	slot = GPOINTER_TO_UINT(g_hash_table_lookup(prof_index, key));
	if (!slot && prof_nslots < ICOUNT_PROF_SLOTS) {
		slot = prof_nslots++;
		prof_slots[slot].vaddr = vaddr;
		prof_slots[slot].ninsns = n;
		g_hash_table_insert(prof_index, key, GUINT_TO_POINTER(slot));
	}
	pthread_mutex_unlock(&prof_lock);
	return slot;
}

static bool icount_is_mark(const struct qemu_plugin_insn *insn)
{
	uint8_t b[sizeof(icount_mark_insn)];

	if (qemu_plugin_insn_size(insn) != sizeof(b))
		return false;
	if (qemu_plugin_insn_data(insn, b, sizeof(b)) != sizeof(b))
		return false;
	return !memcmp(b, icount_mark_insn, sizeof(b));
}

static void icount_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	bool kernel = qemu_plugin_tb_vaddr(tb) >= ICOUNT_KERNEL_BASE;
	size_t i;

	qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(tb,
		QEMU_PLUGIN_INLINE_ADD_U64,
		kernel ? icount_kernel : icount_user, n);
	if (prof_sb)
		qemu_plugin_register_vcpu_tb_exec_inline_per_vcpu(tb,
			QEMU_PLUGIN_INLINE_ADD_U64,
			prof_entry(prof_slot(qemu_plugin_tb_vaddr(tb), n)), n);

	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uintptr_t v;

		if (!icount_is_mark(insn))
			continue;
		v = (uintptr_t)(n - 1 - i) << ICOUNT_MARK_TAIL_SHIFT;
		if (kernel)
			v |= ICOUNT_MARK_KERNEL;
		qemu_plugin_register_vcpu_insn_exec_cb(insn, icount_mark,
						       QEMU_PLUGIN_CB_NO_REGS,
						       (void *)v);
	}
}

static void icount_exit(qemu_plugin_id_t id, void *data)
{
	pthread_mutex_lock(&icount_lock);
	fputs("exit", icount_out);
	icount_print_counts(0, 0, false);
	fclose(icount_out);
	icount_out = NULL;
	if (prof_out) {
		fclose(prof_out);
		prof_out = NULL;
	}
	pthread_mutex_unlock(&icount_lock);
	if (ctl_path) {
		unlink(ctl_path);
		unlink(ctl_ack_path);
	}
	qemu_plugin_scoreboard_free(icount_sb);
	if (prof_sb)
		qemu_plugin_scoreboard_free(prof_sb);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *path = NULL, *prof = NULL, *ctl = NULL;
	char *end;
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4) && argv[i][4]) {
			path = argv[i] + 4;
		} else if (!strncmp(argv[i], "prof=", 5) && argv[i][5]) {
			prof = argv[i] + 5;
		} else if (!strncmp(argv[i], "ctl=", 4) && argv[i][4]) {
			ctl = argv[i] + 4;
		} else if (!strncmp(argv[i], "prof_vcpu=", 10) && argv[i][10]) {
			prof_vcpu = strtoul(argv[i] + 10, &end, 10);
			if (*end) {
				fprintf(stderr, "icount: bad prof_vcpu '%s'\n", argv[i] + 10);
				return -1;
			}
		} else {
			fprintf(stderr, "icount: unknown argument '%s'\n",
				argv[i]);
			return -1;
		}
	}
	if (!path) {
		fprintf(stderr, "icount: out=PATH is required\n");
		return -1;
	}
	if (strcmp(info->target_name, "x86_64") || !info->system_emulation) {
		fprintf(stderr, "icount: needs qemu-system-x86_64, not %s%s\n",
			info->target_name,
			info->system_emulation ? "" : " user mode");
		return -1;
	}

	icount_out = fopen(path, "w");
	if (!icount_out) {
		fprintf(stderr, "icount: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (prof) {
		prof_out = fopen(prof, "w");
		prof_slots = calloc(ICOUNT_PROF_SLOTS, sizeof(*prof_slots));
		prof_prev = calloc(ICOUNT_PROF_SLOTS, sizeof(*prof_prev));
		if (!prof_out || !prof_slots || !prof_prev) {
			fprintf(stderr, "icount: %s: %s\n", prof, strerror(errno));
			return -1;
		}
		fprintf(prof_out, "# icount profile of vCPU %u\n", prof_vcpu);
		prof_index = g_hash_table_new(g_direct_hash, g_direct_equal);
		prof_sb = qemu_plugin_scoreboard_new(ICOUNT_PROF_SLOTS * sizeof(uint64_t));
	}
	fprintf(icount_out, "# icount: plugin API %d, %d vCPUs, kernel >= 0x%llx\n",
		QEMU_PLUGIN_VERSION, info->system.smp_vcpus,
		ICOUNT_KERNEL_BASE);
	fflush(icount_out);

	icount_sb = qemu_plugin_scoreboard_new(sizeof(struct icount_vcpu));
	icount_kernel = qemu_plugin_scoreboard_u64_in_struct(icount_sb,
					struct icount_vcpu, kernel);
	icount_user = qemu_plugin_scoreboard_u64_in_struct(icount_sb,
					struct icount_vcpu, user);

	if (ctl && ctl_start(ctl))
		return -1;

	qemu_plugin_register_vcpu_tb_trans_cb(id, icount_tb_trans);
	qemu_plugin_register_atexit_cb(id, icount_exit, NULL);
	return 0;
}
