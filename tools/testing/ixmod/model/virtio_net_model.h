/* SPDX-License-Identifier: GPL-2.0 */
/*
 * virtio_net_model.h - a virtio-net device (split virtqueues) for host tests
 *
 * The device side of virtio 1.1 §2.6 and §5.1.6 over the rings a driver
 * lays out in host memory: addresses are host pointers, as in the other
 * models.  The model reads the rings through its own offsets, written
 * from the specification (section numbers are the spec's), not through
 * the driver's structs, so a layout mistake in the driver is a failing
 * test, not a shared one.
 *
 * vnm_rx() plays a frame arriving from the wire (header and frame written
 * into the next receive chain, a used entry published); vnm_tx() lets the
 * device transmit what its transmit queue holds (chains gathered,
 * NEEDS_CSUM completed).  The driver's doorbell is ixm_host_wr16(), which
 * this file provides: the notify address a test gives the driver is
 * vnm_dev.notify, and the value written is the queue's index.
 *
 * The model enforces the driver's rules: one broken gets a counted
 * violation (dev->viol[rule]) and, the first time, a "# virtio-net
 * model:" line on stderr naming it; tests assert vnm_violations() == 0.
 * Several devices may exist at once (vnm_new()); each call names one.
 *
 * A device made by vnm_new_mq() has max_virtqueue_pairs queue pairs and
 * the control queue after them (§5.1.2); vnm_rx() and vnm_tx() serve
 * pair 1 only.  Commands on the control queue are answered when it is
 * kicked (MQ_VQ_PAIRS_SET and MQ_RSS_CONFIG, §5.1.6.5.5 and §5.1.6.5.7;
 * any other is refused); what they set is kept (ctrl_*).  A chain made
 * available on another pair's queue is fetched and checked at its kick,
 * then held.
 */
#ifndef _IXM_TEST_VIRTIO_NET_MODEL_H
#define _IXM_TEST_VIRTIO_NET_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VNM_RXQ			0	/* receiveq1 (§5.1.2) */
#define VNM_TXQ			1	/* transmitq1 */
#define VNM_NQ			2	/* the queues vnm_rx() and vnm_tx() serve */
#define VNM_PAIRS_MAX		0x8000	/* §5.1.4.1: max_virtqueue_pairs at most */
#define VNM_RSS_KEY_MAX		40	/* rss_max_key_size, as QEMU's */
#define VNM_RSS_TABLE_MAX	128	/* rss_max_indirection_table_length, as QEMU's */
#define VNM_HDR_LEN		12	/* §5.1.6: modern header, num_buffers included */
#define VNM_RX_MIN_BUF		1526	/* §5.1.6.3.1 without MRG_RXBUF */
#define VNM_FRAME_MAX		65550

/* The driver rules the model checks (virtio_net_model.c explains each). */
enum vnm_rule {
	VNM_V_DESC_RANGE,	/* a head or next index beyond the queue */
	VNM_V_CHAIN_LOOP,	/* a chain that loops or is longer than the queue */
	VNM_V_REUSE,		/* a descriptor posted while the device holds it */
	VNM_V_AVAIL_JUMP,	/* more chains outstanding than the queue has entries */
	VNM_V_RX_READABLE,	/* a device-readable descriptor in a receive chain */
	VNM_V_TX_WRITABLE,	/* a device-writable descriptor in a transmit chain */
	VNM_V_RX_SHORT,		/* a receive chain under 1526 bytes (no MRG_RXBUF) */
	VNM_V_HDR_SIZE,		/* a transmit chain shorter than its header */
	VNM_V_TX_GSO,		/* gso_type other than NONE (no HOST_TSO/UFO) */
	VNM_V_CSUM_FEATURE,	/* NEEDS_CSUM without VIRTIO_NET_F_CSUM */
	VNM_V_CSUM_RANGE,	/* csum_start/csum_offset outside the frame */
	VNM_V_AVAIL_FLAGS,	/* avail->flags not 0 with EVENT_IDX, not 0/1 without */
	VNM_V_MISSED_KICK,	/* entries published to a sleeping device, no kick */
	VNM_V_QUEUE_RANGE,	/* a queue index the device does not have */
	VNM_V_CTRL_LAYOUT,	/* a control chain not command readable, ack writable */
	VNM_V_CTRL_CMD,		/* a control command the driver may not send */
	VNM_V_NR
};

struct vnm_seg {
	uint16_t	idx;		/* the descriptor it came from */
	uint64_t	addr;
	uint32_t	len;
	bool		write;
};

/* A chain the device fetched from the available ring and holds. */
struct vnm_chain {
	uint16_t	head;
	uint16_t	n;
	bool		bad;		/* a rule broken: given back unused */
	struct vnm_seg	*seg;		/* n entries (queue-size array) */
};

struct vnm_queue {
	bool		ready;
	uint16_t	size;
	uint8_t		*desc;		/* §2.6.5 */
	uint8_t		*avail;		/* §2.6.6 driver area */
	uint8_t		*used;		/* §2.6.8 device area */
	uint16_t	last_avail;	/* next available entry to fetch */
	uint16_t	used_idx;	/* the device's used->idx */
	uint32_t	*mark;		/* per descriptor: holding chain's serial, 0 free */
	uint32_t	serial;
	struct vnm_chain *fifo;		/* fetched chains, in order */
	unsigned int	fifo_head, fifo_n;
	/* notifications */
	bool		asleep;		/* asks for a kick (avail_event / flags) */
	uint16_t	sleep_avail;	/* avail->idx when it fell asleep */
	bool		kicked;		/* a kick since it fell asleep */
	uint64_t	kicks;		/* doorbell writes */
	uint64_t	kicks_unasked;	/* of which the device had not asked for */
	uint64_t	irqs;		/* used-buffer notifications it would send */
};

struct vnm_dev {
	uint64_t	features;	/* negotiated: VIRTIO_NET_F_*, VIRTIO_RING_F_EVENT_IDX */
	uint16_t	max_pairs;	/* the configuration's max_virtqueue_pairs */
	unsigned int	nq;		/* virtqueues, the control queue's included */
	uint8_t		notify[16];	/* the doorbell area; queue index written */
	struct vnm_queue *q;		/* nq of them, by index */
	/* the control queue: commands answered, and what they set */
	uint64_t	ctrl_cmds, ctrl_ok;
	uint16_t	ctrl_pairs;		/* MQ_VQ_PAIRS_SET's, or RSS's max_tx_vq */
	bool		ctrl_rss;		/* an MQ_RSS_CONFIG was taken */
	uint32_t	ctrl_hash_types;
	uint16_t	ctrl_table_len;
	uint16_t	ctrl_table[VNM_RSS_TABLE_MAX];
	uint16_t	ctrl_unclassified;
	uint8_t		ctrl_key_len;
	uint8_t		ctrl_key[VNM_RSS_KEY_MAX];
	/* receive: what the next vnm_rx() headers say */
	uint8_t		rx_hdr_flags;	/* VIRTIO_NET_HDR_F_* */
	uint16_t	rx_num_buffers;	/* default 1 */
	bool		rx_validate;	/* set DATA_VALID on good IPv4 TCP/UDP sums */
	/* counters */
	uint64_t	rx_frames, rx_no_buf, rx_too_big, rx_valid;
	uint64_t	tx_frames, tx_csum;
	uint64_t	viol[VNM_V_NR];
	struct vnm_dev	*next_dev;
};

struct vnm_dev *vnm_new(uint64_t features);
struct vnm_dev *vnm_new_mq(uint64_t features, uint16_t max_pairs);
unsigned int vnm_ctrl_vq(const struct vnm_dev *dev);
void vnm_free(struct vnm_dev *dev);
void vnm_queue_setup(struct vnm_dev *dev, unsigned int q, uint16_t size,
		     void *desc, void *avail, void *used);
void vnm_queue_reset(struct vnm_dev *dev, unsigned int q);
void vnm_sleep(struct vnm_dev *dev, unsigned int q, bool asleep);
int vnm_rx(struct vnm_dev *dev, const void *frame, unsigned int len);
typedef void (*vnm_sent_fn)(const uint8_t *f, unsigned int len, void *arg);
unsigned int vnm_tx(struct vnm_dev *dev, unsigned int max, vnm_sent_fn sent, void *arg);
unsigned int vnm_held(struct vnm_dev *dev, unsigned int q);
uint64_t vnm_violations(const struct vnm_dev *dev);

/* Microseconds the driver has waited (ixm_host_delay_us()), all devices */
extern uint64_t vnm_now_us;

#endif /* _IXM_TEST_VIRTIO_NET_MODEL_H */
