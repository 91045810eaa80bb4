/* SPDX-License-Identifier: GPL-2.0 */
/*
 * igb_model.h - a register-level model of the Intel 82576 for host tests
 *
 * It implements the three accessors platform_user.h leaves to a model
 * (ixm_host_rd32, ixm_host_wr32, ixm_host_delay_us) for the registers
 * ixmod's igb code touches, and DMA for the tests: igbm_rx() plays a frame
 * arriving from the wire, igbm_tx() lets the device transmit.  Descriptor
 * and buffer addresses are host pointers.  Offsets and bits are written
 * here from the 82576 datasheet, not taken from the driver, so a wrong
 * offset in the driver is a failing test, not a shared mistake.
 */
#ifndef _IXM_TEST_IGB_MODEL_H
#define _IXM_TEST_IGB_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#define IGBM_REGS_SIZE	0x20000

#define IGBM_MAX_TXQ	16

struct igbm_txctx {		/* §7.2.2.3 advanced context descriptor */
	bool		valid;
	uint16_t	maclen, iplen;
	uint32_t	tucmd;
};

struct igbm {
	uint32_t	regs[IGBM_REGS_SIZE / 4];
	uint16_t	phy[32];
	uint64_t	now_us;		/* advanced by ixm_host_delay_us() */
	uint64_t	rst_done_us;	/* CTRL.RST clears at this time */
	uint64_t	link_at_us;	/* STATUS.LU from this time; 0: never */
	uint32_t	eims;		/* interrupt mask (EIMS/EIMC) */
	uint8_t		mac[6];		/* what the NVM holds */
	struct igbm_txctx ctx[IGBM_MAX_TXQ][2];	/* 2 context slots a TX queue */
	/* failure injection */
	bool		rst_stuck;	/* CTRL.RST never clears */
	bool		enable_stuck;	/* RXDCTL/TXDCTL.ENABLE never latches */
	/* observations */
	unsigned int	tail_writes;	/* RDT/TDT writes to enabled queues */
	bool		tail_before_enable; /* descriptors given to a disabled queue */
	unsigned int	rx_missed;	/* frames with no descriptor */
	unsigned int	tx_ctx_descs;	/* context descriptors read */
	unsigned int	tx_ctx_bad;	/* checksum offload rules broken (frame not sent) */
	const char	*last_ctx_bad;	/* the last one */
};

extern struct igbm igbm;

/* Power-on state: NVM holding @mac, link down. */
void igbm_power_on(const uint8_t mac[6]);

/* Register access for tests (the driver uses ixm_rd32/ixm_wr32). */
uint32_t igbm_reg(uint32_t off);
uint32_t igbm_rq(unsigned int q, uint32_t off);	/* RX queue q, 0x00-0x28 */
uint32_t igbm_tq(unsigned int q, uint32_t off);	/* TX queue q */

/*
 * A frame arrives for RX queue @q.  @status adds write-back status/error
 * bits (IPCS, IPE, a frame error...); @rss_type/@rss_hash are written when
 * RSS is on (MRQC) and RXCSUM.PCSD is set, as §7.1.2.8 says.  A frame
 * longer than the queue's buffer spans descriptors (EOP on the last).
 * Return: descriptors used, or -1 if the queue/receiver is off, or 0 when
 * there were too few descriptors (counted in igbm.rx_missed).
 */
int igbm_rx(unsigned int q, const void *frame, unsigned int len, uint32_t status,
	    uint16_t rss_type, uint32_t rss_hash);

/*
 * The queue the chip's RSS gives a frame: the hash of what rss_model.h
 * says the 82576 hashes under MRQC and RFCTL, with the key in RSSRK,
 * through RETA's entry (8 queues: bits 2:0); queue 0 if MRQC selects no
 * RSS or the frame is not hashed.  @type and @hash are the write-back's
 * RSS Type and hash (0 when not hashed).
 */
int igbm_rss_queue(const void *frame, unsigned int len, uint16_t *type, uint32_t *hash);

/*
 * A frame arrives on the queue igbm_rss_queue() picks, as igbm_rx() with
 * that type and hash.  Return: the queue, or -1 if nothing was delivered.
 */
int igbm_rx_rss(const void *frame, unsigned int len, uint32_t status);

/*
 * Transmit what queue @q holds (head to tail), calling @sent per frame.
 * Context descriptors load the queue's two slots; a frame whose data
 * descriptor asks for checksums (IXSM/TXSM) gets them from the slot it
 * names, computed as §7.2.4 says (see tx_offload() there), or is not
 * sent when that breaks a rule (counted in tx_ctx_bad).
 */
typedef void (*igbm_sent_fn)(const uint8_t *frame, unsigned int len, void *arg);
unsigned int igbm_tx(unsigned int q, igbm_sent_fn sent, void *arg);

/*
 * Would queue @q's RX (@tx false) or TX cause raise MSI-X vector @vector?
 * IVAR routes it there and EIMS has the vector unmasked.
 */
bool igbm_irq_routed(unsigned int q, bool tx, unsigned int vector);

#endif /* _IXM_TEST_IGB_MODEL_H */
