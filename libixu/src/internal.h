/* SPDX-License-Identifier: MIT */
/*
 * internal.h - what libixu's own files share and applications do not see
 */
#ifndef _IXU_INTERNAL_H
#define _IXU_INTERNAL_H

#include "ixu.h"

/* Unmap whatever ixu_attach() mapped; safe on a handle that mapped nothing. */
void ixu_unmap(struct ixu *ixu);

#endif /* _IXU_INTERNAL_H */
