// SPDX-License-Identifier: GPL-2.0
/*
 * stats.c - counter files made from tables
 *
 * A set of counters is a table of {name, offset} (struct ixm_stat_desc),
 * a reader and an attribute array (struct ixm_stat_set); this makes one
 * read-only file per entry.  The cores' (core_sysfs.c) and the ports'
 * (port.c) counter directories are built this way, as ixgbe_ethtool.c
 * builds its statistics from ixgbe_gstrings_stats[].
 */
#include <linux/kobject.h>
#include <linux/sysfs.h>

#include "ixmod.h"

static ssize_t ixm_stat_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	struct ixm_stat_attr *a = container_of(attr, struct ixm_stat_attr, kattr);

	return sysfs_emit(buf, "%llu\n", a->set->read(kobj, a->desc));
}

/**
 * ixm_stat_set_init() - make a counter set's files
 * @set: the set; its attributes are filled in
 * @out: where the @set->n attribute pointers go
 *
 * Context: module init (the attributes are static; sysfs is not using them).
 * Return: @set->n.
 */
unsigned int ixm_stat_set_init(const struct ixm_stat_set *set, struct attribute **out)
{
	unsigned int i;

	for (i = 0; i < set->n; i++) {
		struct ixm_stat_attr *a = &set->attrs[i];

		sysfs_attr_init(&a->kattr.attr);
		a->kattr.attr.name = set->descs[i].name;
		a->kattr.attr.mode = 0444;
		a->kattr.show = ixm_stat_show;
		a->set = set;
		a->desc = &set->descs[i];
		out[i] = &a->kattr.attr;
	}
	return set->n;
}
