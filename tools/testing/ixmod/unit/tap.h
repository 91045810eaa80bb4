/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tap.h - the smallest TAP producer that does the job
 *
 *	tap_plan(3);
 *	tap_ok(x == 1, "x is one");
 *	tap_eq(got, 0xb861, "header checksum");
 *	return tap_exit();
 *
 * Every check prints "ok N - description" or "not ok N - description",
 * and a failed tap_eq() adds "# expected X got Y".  tap_exit() is the
 * program's exit status: 0 only if every planned test ran and passed.
 * A test that loops over many cases reports one line and uses tap_diag()
 * for the first few cases that went wrong.
 */
#ifndef _IXM_TEST_TAP_H
#define _IXM_TEST_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static int tap_planned;
static int tap_run;
static int tap_failed;

static inline void tap_plan(int n)
{
	tap_planned = n;
	printf("TAP version 13\n1..%d\n", n);
}

static inline void tap_vdiag(const char *fmt, va_list ap)
{
	fputs("# ", stdout);
	vprintf(fmt, ap);
	fputc('\n', stdout);
}

static inline __attribute__((format(printf, 1, 2)))
void tap_diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vdiag(fmt, ap);
	va_end(ap);
}

static inline void tap_vresult(bool pass, const char *fmt, va_list ap)
{
	tap_run++;
	if (!pass)
		tap_failed++;
	printf("%sok %d - ", pass ? "" : "not ", tap_run);
	vprintf(fmt, ap);
	fputc('\n', stdout);
	fflush(stdout);
}

static inline __attribute__((format(printf, 2, 3)))
bool tap_ok(bool pass, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vresult(pass, fmt, ap);
	va_end(ap);
	return pass;
}

static inline __attribute__((format(printf, 3, 4)))
bool tap_eq(unsigned long long got, unsigned long long expected,
	    const char *fmt, ...)
{
	bool pass = got == expected;
	va_list ap;

	va_start(ap, fmt);
	tap_vresult(pass, fmt, ap);
	va_end(ap);
	if (!pass)
		tap_diag("expected 0x%llx got 0x%llx", expected, got);
	return pass;
}

static inline int tap_exit(void)
{
	if (tap_run != tap_planned) {
		tap_diag("planned %d tests but ran %d", tap_planned, tap_run);
		if (!tap_failed)
			return 1;
	}
	if (tap_failed)
		tap_diag("%d of %d tests failed", tap_failed, tap_run);
	return tap_failed > 255 ? 255 : tap_failed;
}

#endif /* _IXM_TEST_TAP_H */
