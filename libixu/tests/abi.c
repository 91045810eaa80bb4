// SPDX-License-Identifier: MIT
/*
 * abi.c - the layout of uapi/linux/ixmod.h, fixed at compile time
 *
 * The same facts as ixm_abi_check() in the module: if either side's
 * header changed shape, one of the two builds breaks.
 */
#include <stddef.h>
#include <linux/ixmod.h>

#include "helpers.h"

_Static_assert(sizeof(struct ixmod_info) == 64, "ixmod_info size");
_Static_assert(offsetof(struct ixmod_info, abi_version) == 0, "abi_version");
_Static_assert(offsetof(struct ixmod_info, nr_cores) == 4, "nr_cores");
_Static_assert(offsetof(struct ixmod_info, features) == 8, "features");
_Static_assert(offsetof(struct ixmod_info, nr_cpu_ids) == 16, "nr_cpu_ids");
_Static_assert(offsetof(struct ixmod_info, __pad) == 20, "__pad");
_Static_assert(offsetof(struct ixmod_info, ops) == 24, "ops");
_Static_assert(offsetof(struct ixmod_info, events) == 32, "events");
_Static_assert(offsetof(struct ixmod_info, call_flags) == 36, "call_flags");
_Static_assert(offsetof(struct ixmod_info, setup_flags) == 38, "setup_flags");
_Static_assert(offsetof(struct ixmod_info, ring_entries_max) == 40, "ring_entries_max");
_Static_assert(offsetof(struct ixmod_info, txarena_max) == 44, "txarena_max");
_Static_assert(offsetof(struct ixmod_info, sendv_max) == 48, "sendv_max");
_Static_assert(offsetof(struct ixmod_info, __pad2) == 50, "__pad2");
_Static_assert(offsetof(struct ixmod_info, backlog_max) == 52, "backlog_max");
_Static_assert(offsetof(struct ixmod_info, resv) == 56, "resv");
_Static_assert(IXMOD_IOC_GET_INFO == 0x8040e100, "GET_INFO number");
_Static_assert(IXMOD_IOC_SETUP == 0xc0c0e101, "SETUP number");
_Static_assert(IXMOD_IOC_WAKE == 0xe102, "WAKE number");

_Static_assert(sizeof(struct ixmod_region) == 16, "ixmod_region size");
_Static_assert(offsetof(struct ixmod_region, mmap_offset) == 0, "ixmod_region.mmap_offset");
_Static_assert(offsetof(struct ixmod_region, size) == 8, "ixmod_region.size");

_Static_assert(sizeof(struct ixmod_ring_offsets) == 32, "ixmod_ring_offsets size");
_Static_assert(offsetof(struct ixmod_ring_offsets, prod) == 0, "ixmod_ring_offsets.prod");
_Static_assert(offsetof(struct ixmod_ring_offsets, cons) == 4, "ixmod_ring_offsets.cons");
_Static_assert(offsetof(struct ixmod_ring_offsets, flags) == 8, "ixmod_ring_offsets.flags");
_Static_assert(offsetof(struct ixmod_ring_offsets, entries) == 12, "ixmod_ring_offsets.entries");
_Static_assert(offsetof(struct ixmod_ring_offsets, resv) == 16, "ixmod_ring_offsets.resv");

_Static_assert(sizeof(struct ixmod_setup) == 192, "ixmod_setup size");
_Static_assert(offsetof(struct ixmod_setup, flags) == 0, "ixmod_setup.flags");
_Static_assert(offsetof(struct ixmod_setup, cpu) == 4, "ixmod_setup.cpu");
_Static_assert(offsetof(struct ixmod_setup, call_entries) == 8, "ixmod_setup.call_entries");
_Static_assert(offsetof(struct ixmod_setup, event_entries) == 12, "ixmod_setup.event_entries");
_Static_assert(offsetof(struct ixmod_setup, txarena_size) == 16, "ixmod_setup.txarena_size");
_Static_assert(offsetof(struct ixmod_setup, rxbuf_size) == 20, "ixmod_setup.rxbuf_size");
_Static_assert(offsetof(struct ixmod_setup, features) == 24, "ixmod_setup.features");
_Static_assert(offsetof(struct ixmod_setup, regions) == 32, "ixmod_setup.regions");
_Static_assert(offsetof(struct ixmod_setup, call_off) == 96, "ixmod_setup.call_off");
_Static_assert(offsetof(struct ixmod_setup, event_off) == 128, "ixmod_setup.event_off");
_Static_assert(offsetof(struct ixmod_setup, event_size) == 160, "ixmod_setup.event_size");
_Static_assert(offsetof(struct ixmod_setup, __pad) == 164, "ixmod_setup.__pad");
_Static_assert(offsetof(struct ixmod_setup, resv) == 168, "ixmod_setup.resv");

_Static_assert(sizeof(struct ixmod_call) == 64, "ixmod_call size");
_Static_assert(offsetof(struct ixmod_call, opcode) == 0, "ixmod_call.opcode");
_Static_assert(offsetof(struct ixmod_call, flags) == 1, "ixmod_call.flags");
_Static_assert(offsetof(struct ixmod_call, resv0) == 2, "ixmod_call.resv0");
_Static_assert(offsetof(struct ixmod_call, len) == 4, "ixmod_call.len");
_Static_assert(offsetof(struct ixmod_call, user_data) == 8, "ixmod_call.user_data");
_Static_assert(offsetof(struct ixmod_call, handle) == 16, "ixmod_call.handle");
_Static_assert(offsetof(struct ixmod_call, off) == 24, "ixmod_call.off");
_Static_assert(offsetof(struct ixmod_call, addr) == 28, "ixmod_call.addr");
_Static_assert(offsetof(struct ixmod_call, port) == 32, "ixmod_call.port");
_Static_assert(offsetof(struct ixmod_call, resv1) == 34, "ixmod_call.resv1");
_Static_assert(offsetof(struct ixmod_call, pos) == 36, "ixmod_call.pos");
_Static_assert(IXMOD_CALL_F_POS == 4, "IXMOD_CALL_F_POS");
_Static_assert(offsetof(struct ixmod_call, resv3) == 40, "ixmod_call.resv3");
_Static_assert(offsetof(struct ixmod_call, addr6) == 40, "ixmod_call.addr6");
_Static_assert(offsetof(struct ixmod_call, resv4) == 56, "ixmod_call.resv4");
_Static_assert(sizeof(((struct ixmod_call *)0)->addr6) == 16, "ixmod_call.addr6 size");
_Static_assert(IXMOD_CALL_F_INET6 == 8, "IXMOD_CALL_F_INET6");

_Static_assert(sizeof(struct ixmod_iov) == 8, "ixmod_iov size");
_Static_assert(offsetof(struct ixmod_iov, off) == 0, "ixmod_iov.off");
_Static_assert(offsetof(struct ixmod_iov, len) == 4, "ixmod_iov.len");
_Static_assert(_Alignof(struct ixmod_iov) == 4, "ixmod_iov alignment (arrays are 8-byte aligned)");

/* Opcodes, event types, flags and limits are ABI too: never renumbered. */
_Static_assert(IXMOD_FEAT_TCP == 8, "IXMOD_FEAT_TCP");
_Static_assert(IXMOD_OP_TCP_LISTEN == 5, "IXMOD_OP_TCP_LISTEN");
_Static_assert(IXMOD_OP_TCP_ACCEPT == 6, "IXMOD_OP_TCP_ACCEPT");
_Static_assert(IXMOD_OP_TCP_CONNECT == 7, "IXMOD_OP_TCP_CONNECT");
_Static_assert(IXMOD_OP_TCP_SENDV == 8, "IXMOD_OP_TCP_SENDV");
_Static_assert(IXMOD_OP_TCP_RECV_DONE == 9, "IXMOD_OP_TCP_RECV_DONE");
_Static_assert(IXMOD_OP_TCP_CLOSE == 10, "IXMOD_OP_TCP_CLOSE");
_Static_assert(IXMOD_OP_TCP_SEND == 11, "IXMOD_OP_TCP_SEND");
_Static_assert(IXMOD_OP_TCP_SHUTDOWN == 12, "IXMOD_OP_TCP_SHUTDOWN");
_Static_assert(IXMOD_EV_TCP_KNOCK == 2, "IXMOD_EV_TCP_KNOCK");
_Static_assert(IXMOD_EV_TCP_CONNECTED == 3, "IXMOD_EV_TCP_CONNECTED");
_Static_assert(IXMOD_EV_TCP_RECV == 4, "IXMOD_EV_TCP_RECV");
_Static_assert(IXMOD_EV_TCP_SENT == 5, "IXMOD_EV_TCP_SENT");
_Static_assert(IXMOD_EV_TCP_DEAD == 6, "IXMOD_EV_TCP_DEAD");
_Static_assert(IXMOD_CALL_F_ABORT == 2, "IXMOD_CALL_F_ABORT");
_Static_assert(IXMOD_FEAT_HANDLE_KIND == 32, "IXMOD_FEAT_HANDLE_KIND");
_Static_assert(IXMOD_FEAT_LIMITS == 64, "IXMOD_FEAT_LIMITS");
_Static_assert(IXMOD_HANDLE_KIND_SHIFT == 24, "IXMOD_HANDLE_KIND_SHIFT");
_Static_assert(IXMOD_HANDLE_UDP == 1 && IXMOD_HANDLE_TCP == 2 && IXMOD_HANDLE_LISTENER == 3,
	       "IXMOD_HANDLE_*");

_Static_assert(sizeof(struct ixmod_event) == 32, "ixmod_event size");
_Static_assert(offsetof(struct ixmod_event, type) == 0, "ixmod_event.type");
_Static_assert(offsetof(struct ixmod_event, op) == 1, "ixmod_event.op");
_Static_assert(offsetof(struct ixmod_event, flags) == 2, "ixmod_event.flags");
_Static_assert(offsetof(struct ixmod_event, res) == 4, "ixmod_event.res");
_Static_assert(offsetof(struct ixmod_event, user_data) == 8, "ixmod_event.user_data");
_Static_assert(offsetof(struct ixmod_event, handle) == 16, "ixmod_event.handle");
_Static_assert(offsetof(struct ixmod_event, off) == 16, "ixmod_event.off");
_Static_assert(offsetof(struct ixmod_event, win) == 20, "ixmod_event.win");
_Static_assert(offsetof(struct ixmod_event, addr) == 24, "ixmod_event.addr");
_Static_assert(offsetof(struct ixmod_event, port) == 28, "ixmod_event.port");
_Static_assert(offsetof(struct ixmod_event, lport) == 30, "ixmod_event.lport");

_Static_assert(sizeof(struct ixmod_event_ext) == 64, "ixmod_event_ext size");
_Static_assert(offsetof(struct ixmod_event_ext, handle) == 32, "ixmod_event_ext.handle");
_Static_assert(offsetof(struct ixmod_event_ext, resv) == 40, "ixmod_event_ext.resv");
_Static_assert(offsetof(struct ixmod_event_ext, addr6) == 40, "ixmod_event_ext.addr6");
_Static_assert(offsetof(struct ixmod_event_ext, resv2) == 56, "ixmod_event_ext.resv2");
_Static_assert(IXMOD_SETUP_EVENT_EXT == 2, "IXMOD_SETUP_EVENT_EXT");
_Static_assert(IXMOD_FEAT_EVENT_EXT == 128, "IXMOD_FEAT_EVENT_EXT");
_Static_assert(IXMOD_SETUP_SENT_IN_RECV == 4, "IXMOD_SETUP_SENT_IN_RECV");
_Static_assert(IXMOD_FEAT_SENT_IN_RECV == 256, "IXMOD_FEAT_SENT_IN_RECV");
_Static_assert(IXMOD_FEAT_SHUTDOWN == 512, "IXMOD_FEAT_SHUTDOWN");
_Static_assert(IXMOD_EVF_SENT == 1, "IXMOD_EVF_SENT");
_Static_assert(IXMOD_FEAT_INET6 == 1024, "IXMOD_FEAT_INET6");
_Static_assert(IXMOD_SETUP_INET6 == 8, "IXMOD_SETUP_INET6");
_Static_assert(IXMOD_EVF_INET6 == 2, "IXMOD_EVF_INET6");

int main(void)
{
	/* the run-time half: the ioctl encodes the struct size */
	T_CHECK(_IOC_SIZE(IXMOD_IOC_GET_INFO) == sizeof(struct ixmod_info),
		"size %u", (unsigned int)_IOC_SIZE(IXMOD_IOC_GET_INFO));
	T_CHECK(_IOC_TYPE(IXMOD_IOC_GET_INFO) == IXMOD_IOC_MAGIC, "type");
	T_CHECK(_IOC_DIR(IXMOD_IOC_GET_INFO) == _IOC_READ, "direction");
	T_CHECK(_IOC_SIZE(IXMOD_IOC_SETUP) == sizeof(struct ixmod_setup),
		"setup size %u", (unsigned int)_IOC_SIZE(IXMOD_IOC_SETUP));
	T_CHECK(_IOC_DIR(IXMOD_IOC_SETUP) == (_IOC_READ | _IOC_WRITE), "setup direction");
	T_CHECK(_IOC_SIZE(IXMOD_IOC_WAKE) == 0 && _IOC_DIR(IXMOD_IOC_WAKE) == _IOC_NONE,
		"wake carries nothing");
	return T_EXIT_PASS;
}
