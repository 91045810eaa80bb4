# SPDX-License-Identifier: GPL-2.0
#
# selftest-fw.s - a 64 KiB firmware image (qemu -bios) for the icount
# selftest: marks around loops of known length, in real mode, in long mode
# at a low address (user by icount's address rule) and at an alias above
# 0xffff800000000000 (kernel), then an exit through isa-debug-exit
# (status 85, apart from QEMU's own 0 and 1).
#
#   as --64 --defsym N16=a --defsym N64=b --defsym NHI=c -o fw.o selftest-fw.s
#   ld -m elf_x86_64 -Ttext=0 --oformat=binary -o fw.bin fw.o
#
# The image is mapped at 0xffff0000 and 0xf0000; the CPU starts at
# 0xfffffff0 (.org 0xfff0 below) and jumps to segment 0xf000.  Marks,
# and the instructions from one mark up to and including the next:
#   0 real mode          1 after N16 loops   3 * N16 + 2   user
#   2 long mode, low     3 after N64 loops   3 * N64 + 2   user
#   4 long mode, high    5 after NHI loops   3 * NHI + 2   kernel
#   3 -> 4: 4 user (lea, movabs, add, jmp) and 1 kernel (mark 4)
#   5 -> 6: 1 kernel;  6 -> 7: 11 kernel (10 nops), all in one block
#   7 -> exit: 2 kernel (mov, out), or 3 when the vCPU reaches the hlt
#   before QEMU acts on the exit request
# Each loop is "add; dec; jnz": 3 instructions an iteration, after one
# mov that sets the count.  Interrupts stay off throughout.
#
# With --defsym WAIT=1, after mark 7 the firmware polls COM1's line
# status until a byte arrives on the serial port, executes one more mark
# (the eighth guest mark) and only then exits: the selftest sends host
# marks (the plugin's ctl=) while it waits.

	.set	KERNEL_ALIAS, 0xffff800000000000
	.set	IMAGE_BASE, 0xf0000

	.macro	mark
	.byte	0x66, 0x87, 0xdb	# xchg %bx,%bx (xchg %ebx,%ebx in .code16)
	.endm

	.macro	loop n
	movl	$\n, %ecx
1:	addl	%eax, %edx
	decl	%ecx
	jnz	1b
	.endm

	.text
	.code16
start16:
	cli
	xorw	%ax, %ax
	movw	%ax, %ds
	mark				# 0
	loop	N16
	mark				# 1

	# Page tables in RAM (zero at reset): PML4 0x1000, PDPT 0x2000,
	# PD 0x3000 with one 2 MiB page at 0.  PML4 entries 0 and 256 both
	# point at the PDPT: 0 and 0xffff800000000000 map the same memory.
	movl	$0x2003, 0x1000
	movl	$0x2003, 0x1800
	movl	$0x3003, 0x2000
	movl	$0x0083, 0x3000
	movl	$0x1000, %eax
	movl	%eax, %cr3
	movl	%cr4, %eax
	orl	$0x20, %eax		# PAE
	movl	%eax, %cr4
	movl	$0xc0000080, %ecx	# EFER
	rdmsr
	orl	$0x100, %eax		# LME
	wrmsr
	lgdtl	%cs:gdt_desc
	movl	%cr0, %eax
	orl	$0x80000001, %eax	# PG | PE: straight to long mode
	movl	%eax, %cr0
	ljmpl	$0x08, $IMAGE_BASE + start64

	.code64
start64:
	mark				# 2
	loop	N64
	mark				# 3
	leaq	high(%rip), %rax
	movabsq	$KERNEL_ALIAS, %rdx
	addq	%rdx, %rax
	jmp	*%rax
high:
	mark				# 4
	loop	NHI
	mark				# 5
	mark				# 6
	.rept	10
	nop
	.endr
	mark				# 7
	.ifdef	WAIT
3:	movw	$0x3fd, %dx		# COM1 line status
	inb	%dx, %al
	testb	$1, %al			# data ready
	jz	3b
	mark				# the guest's eighth
	.endif
	movb	$0x2a, %al
	outb	%al, $0xf4		# isa-debug-exit: QEMU exits with 0x55
2:	hlt
	jmp	2b

	.p2align 3
gdt:
	.quad	0
	.quad	0x00af9a000000ffff	# 0x08: 64-bit code
	.quad	0x00cf92000000ffff	# 0x10: data
gdt_end:
gdt_desc:
	.word	gdt_end - gdt - 1
	.long	IMAGE_BASE + gdt

	.org	0xfff0
	.code16
	ljmp	$0xf000, $start16
	.org	0x10000
