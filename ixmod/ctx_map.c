// SPDX-License-Identifier: GPL-2.0
/*
 * ctx_map.c - a context's four regions in the application's address space
 *
 * The call and event rings and the transmit arena (vmalloc_user(),
 * zeroed) and the receive region (the core's own buffer pages, one slice
 * per port, read-only, a reference held on each by the context) are PFN
 * mappings filled by a fault handler: no page reference can be taken
 * through them, so none outlives the context, and the context outlives
 * every mapping of it (each VMA holds the file): a page can never be
 * freed, or reused, under a mapping.
 */
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>

#include <linux/ixmod.h>

#include "compat.h"
#include "ixmod.h"
#include "ctx.h"

/*
 * Where a region lives: @vaddr for the vmalloc regions, NULL for the
 * receive region (its pages are @ctx->rx_pages).  False for an offset
 * that names no region.
 */
static bool ixm_ctx_region(struct ixm_ctx *ctx, u64 base, void **vaddr, size_t *size)
{
	switch (base) {
	case IXMOD_OFF_CALL_RING:
		*vaddr = ctx->call_region;
		*size = ctx->call_bytes;
		return true;
	case IXMOD_OFF_EVENT_RING:
		*vaddr = ctx->event_region;
		*size = ctx->event_bytes;
		return true;
	case IXMOD_OFF_TXARENA:
		*vaddr = ctx->txarena;
		*size = ctx->txarena_bytes;
		return true;
	case IXMOD_OFF_RXBUF:
		*vaddr = NULL;
		*size = (size_t)ctx->rx_npages * PAGE_SIZE;
		return true;
	}
	return false;
}

/*
 * Fill in one page of a region.  The pages belong to @ctx (the vmalloc
 * areas, and a reference on each receive page) until the file is released,
 * which is after the last mapping is gone: a mapping never outlives them.
 * (MADV_DONTNEED is refused on PFN mappings; mremap() moves the entries.)
 */
static vm_fault_t ixm_ctx_fault(struct vm_fault *vmf)
{
	struct ixm_ctx *ctx = vmf->vma->vm_private_data;
	u64 off = (u64)vmf->pgoff << PAGE_SHIFT;
	u64 base = off & ~(u64)(IXM_REGION_SPAN - 1);
	unsigned long pfn;
	void *vaddr;
	size_t size;

	if (!ixm_ctx_region(ctx, base, &vaddr, &size) || off - base >= size)
		return VM_FAULT_SIGBUS;
	if (vaddr)
		pfn = vmalloc_to_pfn(vaddr + (off - base));
	else
		pfn = page_to_pfn(ctx->rx_pages[(off - base) >> PAGE_SHIFT]);
	return vmf_insert_pfn(vmf->vma, vmf->address, pfn);
}

static const struct vm_operations_struct ixm_ctx_vm_ops = {
	.fault		= ixm_ctx_fault,
};

/**
 * ixm_ctx_mmap() - map one of the context's regions
 * @file: an attached /dev/ixmod file
 * @vma: the mapping; its offset names the region (IXMOD_OFF_*) and its
 *	length must be exactly the region's size
 *
 * Every region is a PFN mapping (VM_PFNMAP | VM_IO), filled page by page
 * by ixm_ctx_fault().  Its page table entries are special, so nothing can
 * take a page reference through it: get_user_pages() and its fast path,
 * hence vmsplice(), O_DIRECT, io_uring's registered buffers and
 * process_vm_readv(), fail with -EFAULT.  A receive page is therefore only
 * ever reachable through a mapping of a live context of the core's owner,
 * never pinned past it (loads, write() and send() copy, and work).
 * VM_IO also makes MADV_DOFORK fail, so VM_DONTCOPY holds: a forked child
 * never inherits a region.
 *
 * Context: process, mmap lock held.
 * Return: 0; -EINVAL (not attached, unknown offset, wrong length, not
 * MAP_SHARED); -EPERM (another address space, or a writable receive
 * mapping).
 */
int ixm_ctx_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct ixm_ctx *ctx = ixm_file_ctx(file);
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	unsigned long len = vma->vm_end - vma->vm_start;
	unsigned long clear = 0;
	void *vaddr;
	size_t size;

	if (!ctx)
		return -EINVAL;
	if (vma->vm_mm != ctx->mm)
		return -EPERM;
	if (!ixm_ctx_region(ctx, off, &vaddr, &size) || len != size)
		return -EINVAL;
	/* a private (copy-on-write) PFN mapping has no pages to copy */
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if (off == IXMOD_OFF_RXBUF) {
		/* ublk_ch_mmap: refuse write, and forbid mprotect() from adding it */
		if (vma->vm_flags & VM_WRITE)
			return -EPERM;
		clear = VM_MAYWRITE;
	}
	ixm_vma_set_flags(vma, VM_PFNMAP | VM_IO | VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY,
			  clear);
	vma->vm_private_data = ctx;
	vma->vm_ops = &ixm_ctx_vm_ops;
	return 0;
}
