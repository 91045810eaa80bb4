/* SPDX-License-Identifier: GPL-2.0 */
/*
 * harness.h - kselftest_harness.h for the host unit tests, plus two helpers
 *
 * Each unit/<file>.c is one program of TEST()s and TEST_F()s from the
 * kernel's own kselftest_harness.h (Debian's linux-source; the Makefile
 * finds it through KSFT_DIR).  Every test runs in a child forked from a
 * parent that ran no test, so a test sees only what a FIXTURE_SETUP() or a
 * constructor prepared.  EXPECT_EQ(expected, seen) and friends print both
 * values when they fail; TH_LOG() after one says what should have happened.
 *
 * A test is a test because it is defined: there is no list of them, and
 * `make run T=NAME` finds a test by asking every program (tap-run.sh).
 */
#ifndef _IXM_TEST_HARNESS_H
#define _IXM_TEST_HARNESS_H

#include <stdarg.h>
#include <stdio.h>

#include "kselftest_harness.h"

/*
 * How many bad cases a test that loops over many reports in detail before
 * it only counts them, so that one regression does not print thousands of
 * lines.
 */
#define IXM_DIAG_MAX	5

/**
 * ixm_diag() - a "# " diagnostic line from a helper outside a TEST()
 * @fmt: printf format
 *
 * TH_LOG() needs the test's _metadata; helpers shared by many tests use
 * this instead.  It writes to TH_LOG's stream (stderr, unbuffered), so
 * nothing is lost when the test's child ends with _exit().
 */
static inline __attribute__((format(printf, 1, 2)))
void ixm_diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("# ", TH_LOG_STREAM);
	vfprintf(TH_LOG_STREAM, fmt, ap);
	fputc('\n', TH_LOG_STREAM);
	va_end(ap);
}

#ifdef IXM_TEST_LSAN
/*
 * SANITIZE=1 links with -Wl,--wrap=_exit.  The harness ends each test's
 * child with _exit(), which skips LeakSanitizer's check at exit; run it
 * here, so a test that leaks still fails (LeakSanitizer exits non-zero,
 * and the harness reports the test as failed).
 */
void __lsan_do_leak_check(void);
void __real__exit(int status);
void __wrap__exit(int status);

void __wrap__exit(int status)
{
	__lsan_do_leak_check();
	__real__exit(status);
}
#endif

#endif /* _IXM_TEST_HARNESS_H */
