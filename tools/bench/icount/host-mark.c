// SPDX-License-Identifier: GPL-2.0
/*
 * icount-host-mark - ask the icount plugin for a mark from the host.
 *
 *   icount-host-mark CTL [LABEL]
 *
 * For a script on the host, outside the guest, that needs a mark where it
 * cannot execute the guest's mark instruction (icount-mark): writes
 * "mark LABEL" to the plugin's control FIFO CTL (its ctl=CTL), waits for
 * the plugin's acknowledgment on CTL.ack (ctl.h) and prints the mark's
 * sequence number in the plugin's out= file.  LABEL defaults to
 * host-mark-PID.  Exit status 0 when the mark was taken, 1 when not (no
 * plugin there, an error, or no answer within 10 s), 2 on bad usage.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"

int main(int argc, char **argv)
{
	unsigned long long seq;
	char label[64];

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: icount-host-mark CTL [LABEL]\n");
		return 2;
	}
	if (argc == 3)
		snprintf(label, sizeof(label), "%s", argv[2]);
	else
		snprintf(label, sizeof(label), "host-mark-%d", (int)getpid());
	if (icount_host_mark(argv[1], label, &seq)) {
		fprintf(stderr, "icount-host-mark: %s: %s\n", argv[1],
			errno == EINVAL ? "the plugin refused the mark" : strerror(errno));
		return 1;
	}
	printf("%llu\n", seq);
	return 0;
}
