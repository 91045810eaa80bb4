/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ixgbe_model.h - a register-level model of the Intel 82599 for host tests
 *
 * It implements the three accessors platform_user.h leaves to a model
 * (ixm_host_rd32, ixm_host_wr32, ixm_host_delay_us) over a 128 KiB BAR0,
 * and DMA for the tests: ixgbem_rx() plays a frame arriving from the wire,
 * ixgbem_tx() lets the device transmit.  Descriptor and buffer addresses
 * are host pointers.  A test links this model or igb_model, not both.
 *
 * Offsets and bits are written in ixgbe_model.c from the 82599 datasheet
 * (section numbers are the datasheet's), not taken from any driver header,
 * so a wrong offset in the driver is a failing test, not a shared mistake.
 *
 * The model enforces the datasheet's rules: a driver that breaks one gets
 * a counted violation (ixgbem.viol[rule]) and, the first time, a "# ixgbe
 * model:" line on stderr naming it; a test of a driver asserts ixgbem_violations() == 0.
 * The bring-up order the model accepts is written above ixgbe_model.c's
 * rule list.
 */
#ifndef _IXM_TEST_IXGBE_MODEL_H
#define _IXM_TEST_IXGBE_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#define IXGBEM_REGS_SIZE	0x20000		/* EEC at 0x10010 is the highest used */
#define IXGBEM_MAX_RXQ		128		/* §1.3: 128 RX and 128 TX queues */
#define IXGBEM_MAX_TXQ		128
#define IXGBEM_MAX_VECTORS	64		/* §7.3.1: 64 MSI-X vectors */

/* Time the model takes, in microseconds of ixm_host_delay_us() */
#define IXGBEM_RST_US		1000	/* CTRL.RST/LNK_RST self-clear */
#define IXGBEM_ARD_US		3000	/* EEC.ARD after the reset ends */
#define IXGBEM_DMAIDONE_US	5000	/* RDRXCTL.DMAIDONE after the reset ends */
#define IXGBEM_ENABLE_US	100	/* RXDCTL/TXDCTL.ENABLE read-back */
#define IXGBEM_LINK_US		100000	/* default: link up after reset/link_up() */
#define IXGBEM_SECRX_US		10	/* SECRXSTAT.SECRX_RDY after SECRXCTRL.RX_DIS */

/* The datasheet rules the model checks (ixgbe_model.c explains each). */
enum ixgbem_rule {
	IXGBEM_V_RESET_BUSY,		/* register written while reset runs */
	IXGBEM_V_EEC_WAIT,		/* EEC.ARD never read set before use */
	IXGBEM_V_DMA_WAIT,		/* RDRXCTL.DMAIDONE never read set */
	IXGBEM_V_ENABLE_NO_RING,	/* queue enabled with no valid ring */
	IXGBEM_V_RING_ALIGN,		/* base or length not 128-byte aligned */
	IXGBEM_V_TAIL_BEFORE_ENABLE,	/* descriptors given to a disabled queue */
	IXGBEM_V_TAIL_RANGE,		/* tail beyond the ring */
	IXGBEM_V_HEAD_WHILE_ENABLED,	/* RDH/TDH written while enabled */
	IXGBEM_V_RXEN_BEFORE_QUEUES,	/* RXCTRL.RXEN before a queue latched */
	IXGBEM_V_RX_CONFIG,		/* SRRCTL not adv. one-buffer; no buffer */
	IXGBEM_V_TX_NO_TE,		/* transmit with DMATXCTL.TE clear */
	IXGBEM_V_TX_DESC,		/* malformed transmit descriptor chain */
	IXGBEM_V_TX_PAYLEN,		/* PAYLEN differs from the frame */
	IXGBEM_V_TX_CONTEXT,		/* checksum asked with no fit context */
	IXGBEM_V_QUEUE_RANGE,		/* queue beyond configured or chip count */
	IXGBEM_V_IVAR_RANGE,		/* IVAR vector beyond the 64 */
	IXGBEM_V_NR
};

struct ixgbem_txctx {			/* §7.2.3.2.3 context descriptor */
	bool		valid;
	uint16_t	maclen, iplen;
	uint32_t	tucmd;
};

struct ixgbem_dev {
	uint32_t	regs[IXGBEM_REGS_SIZE / 4];
	uint64_t	now_us;		/* advanced by ixm_host_delay_us() */
	uint8_t		mac[6];		/* what the EEPROM holds */
	/* configuration a test sets after ixgbem_power_on() */
	unsigned int	rx_queues;	/* the driver's RX queue count (<= 128) */
	unsigned int	tx_queues;	/* and TX */
	unsigned int	link_speed;	/* Mb/s when up: 100, 1000, 10000 */
	unsigned int	link_delay_us;	/* link after reset/ixgbem_link_up() */
	/* failure injection (kept across ixgbem_power_on()) */
	bool		rst_stuck;	/* CTRL.RST never clears */
	bool		ard_stuck;	/* EEC.ARD never sets */
	bool		dmaidone_stuck;	/* RDRXCTL.DMAIDONE never sets */
	bool		enable_stuck;	/* RXDCTL/TXDCTL.ENABLE never latches */
	bool		secrx_stuck;	/* SECRXSTAT.SECRX_RDY never sets */
	/* state */
	uint64_t	rst_done_us;	/* RST clears at; 0: no reset running */
	uint64_t	ard_at_us, dmaidone_at_us;
	uint64_t	secrx_rdy_at_us;	/* RX_DIS set: SECRX_RDY from */
	bool		ard_seen, dmaidone_seen; /* the driver read them set */
	bool		cable;		/* ixgbem_link_down()/up() */
	uint64_t	link_at_us;	/* link up from; 0: down */
	bool		link_was_up;	/* for EICR.LSC on a change */
	uint64_t	rx_en_at[IXGBEM_MAX_RXQ];	/* ENABLE reads 1 from; 0: off */
	uint64_t	tx_en_at[IXGBEM_MAX_TXQ];
	struct ixgbem_txctx ctx[IXGBEM_MAX_TXQ][2];	/* 2 contexts a queue */
	uint64_t	eims;		/* vector mask (EIMS/EIMS_EX) */
	uint32_t	eims_other;	/* EIMS bits 31:16 */
	uint64_t	eicr;		/* vector causes; bit 20 kept in eicr_other */
	uint32_t	eicr_other;
	uint64_t	gorc, gotc, gorch_latch, gotch_latch;
	/* observations */
	unsigned int	tx_ctx_descs;	/* context descriptors read, all queues */
	unsigned int	viol[IXGBEM_V_NR];
	const char	*last_violation;
	unsigned int	tail_writes;	/* RDT/TDT writes to enabled queues */
	bool		tail_before_enable;
	unsigned int	irqs[IXGBEM_MAX_VECTORS];	/* MSI-X messages sent */
};

/*
 * Several devices: ixgbem names the one the test-side calls below act on
 * (ixgbem_rx(), ixgbem_tx(), the failure flags...), the first device
 * unless ixgbem_select() chose another.  A driver reaches a device made
 * by ixgbem_new() by using it as the NIC's register base (struct
 * ixm_nic.regs): each register access selects the device its base names,
 * and NULL the current one.  Time is shared: ixm_host_delay_us() advances
 * every device.
 */
extern struct ixgbem_dev *ixgbem_cur;
#define ixgbem (*ixgbem_cur)

#define IXGBEM_MAX_DEVS		4
struct ixgbem_dev *ixgbem_new(void);		/* powered off: ixgbem_power_on() */
void ixgbem_free(struct ixgbem_dev *m);	/* selects the first device */
void ixgbem_select(struct ixgbem_dev *m);

/* Power-on state: EEPROM holding @mac, cable in, every queue allowed. */
void ixgbem_power_on(const uint8_t mac[6]);

/* Total violations since power-on; ixgbem.viol[] has them by rule. */
unsigned int ixgbem_violations(void);
const char *ixgbem_rule_name(enum ixgbem_rule rule);

/* Register access for tests, bypassing the rules and clear-on-read. */
uint32_t ixgbem_reg(uint32_t off);
uint32_t ixgbem_rxq_off(unsigned int q);	/* RDBAL(q); + 0x04.. 0x28 */
uint32_t ixgbem_txq_off(unsigned int q);	/* TDBAL(q) */

/*
 * A frame (no FCS) arrives from the wire.  The model parses it, computes
 * checksum status and, with MRQC.RSSEN, its own Toeplitz hash and the
 * RETA queue; ixgbem_rx_to() forces queue @q (no RSS).  A frame longer
 * than the queue's buffer spans descriptors, EOP on the last.
 * Return: the queue it went to; -1 when the receiver, link or queue is off
 * or the queue is out of range; -2 when there were too few descriptors
 * (counted in RNBC and QPRDC or MPC).
 */
int ixgbem_rx(const void *frame, unsigned int len);
int ixgbem_rx_to(unsigned int q, const void *frame, unsigned int len);
/* A frame with a bad FCS: counted in CRCERRS, never delivered. */
void ixgbem_rx_bad_crc(const void *frame, unsigned int len);

/* The model's Toeplitz hash (§7.1.2.8.1) with the key RSSRK holds. */
uint32_t ixgbem_toeplitz(const uint8_t *in, unsigned int len);

/* Transmit what queue @q holds (head to tail), calling @sent per frame. */
typedef void (*ixgbem_sent_fn)(const uint8_t *frame, unsigned int len, void *arg);
unsigned int ixgbem_tx(unsigned int q, ixgbem_sent_fn sent, void *arg);

/*
 * Would queue @q's RX (@tx false) or TX cause raise MSI-X vector @vector?
 * IVAR routes it there and EIMS has the vector unmasked.
 */
bool ixgbem_irq_routed(unsigned int q, bool tx, unsigned int vector);

/* Cable out (link down at once, EICR.LSC) and back in (up after delay). */
void ixgbem_link_down(void);
void ixgbem_link_up(void);

#endif /* _IXM_TEST_IXGBE_MODEL_H */
