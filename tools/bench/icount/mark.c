// SPDX-License-Identifier: GPL-2.0
/*
 * icount-mark - execute the icount plugin's mark instruction once.
 *
 * Run in a guest under qemu-system-x86_64 with build/icount/icount.so,
 * it makes the plugin write one "mark" line with every vCPU's counts.
 * Elsewhere it does nothing: the instruction is a no-op.
 */

int main(void)
{
	/* xchg %bx,%bx, spelled out: the plugin matches these bytes. */
	asm volatile(".byte 0x66, 0x87, 0xdb" ::: "memory");
	return 0;
}
