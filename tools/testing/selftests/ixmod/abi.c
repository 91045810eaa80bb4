// SPDX-License-Identifier: GPL-2.0
/*
 * abi.c - /dev/ixmod's ioctl ABI, modeled on epoll_busy_poll.c
 *
 * GET_INFO answers with this header's ABI version and only known feature
 * bits, overwrites every field the caller passed (reserved words come back
 * zero), and refuses bad pointers; unknown commands, including GET_INFO's
 * number with another size, are -ENOTTY; the file has no read, write or
 * mmap yet.
 */
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <linux/ixmod.h>

#include "kselftest_harness.h"
#include "ixmod_test.h"

FIXTURE(dev) {
	struct ixt_kmsg kmsg;
	int fd;
};

FIXTURE_SETUP(dev)
{
	ASSERT_EQ(0, ixt_kmsg_open(&self->kmsg));
	self->fd = open(IXMOD_DEV_PATH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s (is ixmod loaded?)",
				      IXMOD_DEV_PATH, strerror(errno));
}

FIXTURE_TEARDOWN(dev)
{
	char why[512];

	close(self->fd);
	ixt_write(IXM_SYSFS "/cores", "\n");
	EXPECT_EQ(0, ixt_kmsg_check(&self->kmsg, why, sizeof(why)))
		TH_LOG("%s", why);
	ixt_kmsg_close(&self->kmsg);
}

TEST_F(dev, get_info)
{
	struct ixmod_info info;

	memset(&info, 0xff, sizeof(info));	/* garbage must not survive */
	ASSERT_EQ(0, ioctl(self->fd, IXMOD_IOC_GET_INFO, &info));
	EXPECT_EQ(IXMOD_ABI_VERSION, info.abi_version);
	EXPECT_TRUE(info.features & IXMOD_FEAT_LIMITS)
		TH_LOG("features 0x%llx", (unsigned long long)info.features);
	EXPECT_TRUE(info.features & IXMOD_FEAT_SHUTDOWN)
		TH_LOG("features 0x%llx", (unsigned long long)info.features);
	EXPECT_TRUE(info.features & IXMOD_FEAT_INET6)
		TH_LOG("features 0x%llx: UDP over IPv6", (unsigned long long)info.features);
	EXPECT_TRUE(info.features & IXMOD_FEAT_TCP6)
		TH_LOG("features 0x%llx: TCP over IPv6", (unsigned long long)info.features);
	/* what this module takes: opcodes and events from 0 without a gap */
	EXPECT_EQ((1ULL << (IXMOD_OP_TCP_SHUTDOWN + 1)) - 1, info.ops);
	EXPECT_EQ((1U << (IXMOD_EV_TCP_DEAD + 1)) - 1, info.events);
	EXPECT_EQ(IXMOD_CALL_F_NOTIFY | IXMOD_CALL_F_ABORT | IXMOD_CALL_F_POS |
		  IXMOD_CALL_F_INET6, info.call_flags);
	EXPECT_EQ(IXMOD_SETUP_CLAMP | IXMOD_SETUP_EVENT_EXT | IXMOD_SETUP_SENT_IN_RECV |
		  IXMOD_SETUP_INET6, info.setup_flags);
	EXPECT_EQ(4096, info.ring_entries_max);
	EXPECT_EQ(64U << 20, info.txarena_max);
	EXPECT_EQ(64, info.sendv_max);
	EXPECT_EQ(4096, info.backlog_max);
	EXPECT_EQ(0, info.__pad2);
	EXPECT_EQ(sysconf(_SC_NPROCESSORS_CONF) > 0, info.nr_cpu_ids > 0);
	EXPECT_GE(info.nr_cpu_ids, (unsigned int)ixt_nr_online_cpus());
	EXPECT_EQ(0, info.__pad);
	EXPECT_EQ(0, info.resv);
}

/*
 * The 16-byte addresses carved out of reserved words (IXMOD_FEAT_INET6):
 * same sizes, same offsets, the old names still there.
 */
TEST(inet6_layout)
{
	struct ixmod_call c;
	struct ixmod_event_ext x;

	EXPECT_EQ(64, sizeof(c));
	EXPECT_EQ(40, offsetof(struct ixmod_call, resv3));
	EXPECT_EQ(40, offsetof(struct ixmod_call, addr6));
	EXPECT_EQ(16, sizeof(c.addr6));
	EXPECT_EQ(56, offsetof(struct ixmod_call, resv4));
	EXPECT_EQ(64, sizeof(x));
	EXPECT_EQ(40, offsetof(struct ixmod_event_ext, resv));
	EXPECT_EQ(40, offsetof(struct ixmod_event_ext, addr6));
	EXPECT_EQ(16, sizeof(x.addr6));
	EXPECT_EQ(56, offsetof(struct ixmod_event_ext, resv2));
	EXPECT_EQ(1ULL << 10, IXMOD_FEAT_INET6);
	EXPECT_EQ(1ULL << 11, IXMOD_FEAT_TCP6);
	EXPECT_EQ(1U << 3, IXMOD_SETUP_INET6);
	EXPECT_EQ(1U << 3, IXMOD_CALL_F_INET6);
	EXPECT_EQ(1U << 1, IXMOD_EVF_INET6);
	EXPECT_EQ(2, IXMOD_ABI_VERSION) TH_LOG("additions only: ABI 2 stays");
}

/*
 * IXMOD_SETUP_INET6 needs IXMOD_SETUP_EVENT_EXT: refused before anything
 * else is looked at (no core needed), with one line in the kernel log.
 */
TEST_F(dev, setup_inet6_needs_event_ext)
{
	struct ixmod_setup p;
	char log[1024];

	memset(&p, 0, sizeof(p));
	p.flags = IXMOD_SETUP_INET6;
	EXPECT_EQ(-1, ioctl(self->fd, IXMOD_IOC_SETUP, &p));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(1, ixt_kmsg_read(&self->kmsg, "IXMOD_SETUP_INET6", log, sizeof(log)))
		TH_LOG("one line naming the flag: %s", log);
	/* with EVENT_EXT the flags pass: what fails is the missing core */
	memset(&p, 0, sizeof(p));
	p.flags = IXMOD_SETUP_INET6 | IXMOD_SETUP_EVENT_EXT;
	p.cpu = 0xffffffff;
	EXPECT_EQ(-1, ioctl(self->fd, IXMOD_IOC_SETUP, &p));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, ixt_kmsg_read(&self->kmsg, "IXMOD_SETUP_INET6", log, sizeof(log)))
		TH_LOG("no complaint about the flags: %s", log);
}

TEST_F(dev, get_info_counts_cores)
{
	struct ixmod_info info;

	ASSERT_EQ(0, ixt_write(IXM_SYSFS "/cores", "1-2"));
	ASSERT_EQ(0, ioctl(self->fd, IXMOD_IOC_GET_INFO, &info));
	EXPECT_EQ(2, info.nr_cores);
	ASSERT_EQ(0, ixt_write(IXM_SYSFS "/cores", "2"));
	ASSERT_EQ(0, ioctl(self->fd, IXMOD_IOC_GET_INFO, &info));
	EXPECT_EQ(1, info.nr_cores);
	ASSERT_EQ(0, ixt_write(IXM_SYSFS "/cores", "\n"));
	ASSERT_EQ(0, ioctl(self->fd, IXMOD_IOC_GET_INFO, &info));
	EXPECT_EQ(0, info.nr_cores);
}

TEST_F(dev, bad_pointer_is_efault)
{
	void *ro;

	EXPECT_EQ(-1, ioctl(self->fd, IXMOD_IOC_GET_INFO, NULL));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(self->fd, IXMOD_IOC_GET_INFO, (void *)1));
	EXPECT_EQ(EFAULT, errno);

	/* a read-only page cannot receive the answer */
	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	EXPECT_EQ(-1, ioctl(self->fd, IXMOD_IOC_GET_INFO, ro));
	EXPECT_EQ(EFAULT, errno);
	munmap(ro, 4096);
}

struct ixmod_info_short { __u32 words[8]; };

TEST_F(dev, unknown_ioctls_are_enotty)
{
	unsigned long cmds[] = {
		_IO(IXMOD_IOC_MAGIC, 0x3f),
		_IOR(IXMOD_IOC_MAGIC, 0x00, struct ixmod_info_short), /* size */
		_IOW(IXMOD_IOC_MAGIC, 0x00, struct ixmod_info),	/* direction */
		_IOR('T', 0x00, struct ixmod_info),			/* type */
		0,
	};
	char buf[256];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		EXPECT_EQ(-1, ioctl(self->fd, cmds[i], buf)) TH_LOG("cmd 0x%lx", cmds[i]);
		EXPECT_EQ(ENOTTY, errno) TH_LOG("cmd 0x%lx", cmds[i]);
	}
}

TEST_F(dev, no_read_write_mmap)
{
	char buf[16];

	EXPECT_EQ(-1, read(self->fd, buf, sizeof(buf)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, write(self->fd, buf, sizeof(buf)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ, MAP_SHARED, self->fd, 0));
	EXPECT_EQ(EINVAL, errno);	/* not attached: no region to map */
}

TEST_F(dev, node_is_root_only)
{
	struct stat st;

	ASSERT_EQ(0, stat(IXMOD_DEV_PATH, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(0600, st.st_mode & 0777);
	EXPECT_EQ(0, st.st_uid);
}

TEST_F(dev, many_opens)
{
	int fds[64];
	size_t i;

	for (i = 0; i < 64; i++) {
		struct ixmod_info info;

		fds[i] = open(IXMOD_DEV_PATH, O_RDWR);
		ASSERT_LE(0, fds[i]);
		ASSERT_EQ(0, ioctl(fds[i], IXMOD_IOC_GET_INFO, &info));
	}
	for (i = 0; i < 64; i++)
		close(fds[i]);
}

int main(int argc, char **argv)
{
	return ixt_harness_run(argc, argv);
}
