/* SPDX-License-Identifier: MIT */
/*
 * helpers.h - exit codes and a check macro shared by libixu's tests
 */
#ifndef _IXU_TEST_HELPERS_H
#define _IXU_TEST_HELPERS_H

#include <stdio.h>
#include <stdlib.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

enum {
	T_EXIT_PASS = 0,
	T_EXIT_FAIL = 1,
	T_EXIT_SKIP = 77,
};

/* Print where and what failed, and fail the test. */
#define T_CHECK(cond, fmt, ...)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: %s: " fmt "\n",		\
				__FILE__, __LINE__, #cond, ##__VA_ARGS__); \
			exit(T_EXIT_FAIL);				\
		}							\
	} while (0)

#endif
