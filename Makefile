# SPDX-License-Identifier: GPL-2.0
#
# ixmod convenience targets.
#
#   make                 ixmod/ixmod.ko for KDIR, and libixu
#   make modules         just the module      (KDIR=/path/to/kernel/build)
#   make modules-debian  the module for every Debian kernel installed, in
#                        build/<release>/ (W=1 and C=1 pass through)
#   make libixu          libixu.a, libixu.so, libixu.pc
#   make check           every test: host, libixu, VM on 6.1 and 6.12
#   make check-debug     every VM selftest on a debug kernel (KASAN, lockdep,
#                        kmemleak, fault injection) that scripts/build-debug-kernel
#                        builds first; not run by CI (too slow: 4-5 hours);
#                        PART=K runs one of its four parts of about an hour
#   make demo            boot a VM and show the dataplane running
#   make demo-softport   the same with no NIC: a software port (ixsw0)
#   make lint            checkpatch, kernel-doc, shellcheck, sparse on libixu,
#                        the man pages and the docs against the code
#   make install         the module for KDIR's kernel (modules_install into
#                        /lib/modules/RELEASE/updates, then depmod: modprobe
#                        ixmod works), libixu (make -C libixu install) and
#                        ixmod-bind, ixmod-stat in PREFIX/sbin; DESTDIR
#                        stages it all under another root
#
# KDIR defaults to the running kernel's build tree, and when that is absent
# (this is a build host, not the target) to the newest Debian 6.12 headers.

KREL_RUNNING := $(shell uname -r)
ifeq ($(wildcard /lib/modules/$(KREL_RUNNING)/build),)
KDIR ?= $(lastword $(sort $(wildcard /usr/src/linux-headers-6.12*-amd64)))
else
KDIR ?= /lib/modules/$(KREL_RUNNING)/build
endif

# Out-of-tree builds do not read Kconfig; set what a distribution would.
# IXMOD_IGB=n, IXMOD_IXGBE=n or IXMOD_VIRTIO=n leaves that queue driver out;
# IXMOD_SOFTPORT=n, the software ports.
IXMOD_IGB ?= y
IXMOD_IXGBE ?= y
IXMOD_VIRTIO ?= y
IXMOD_SOFTPORT ?= y
IXM_KCONFIG := CONFIG_IXMOD=m CONFIG_IXMOD_IGB=$(IXMOD_IGB) CONFIG_IXMOD_IXGBE=$(IXMOD_IXGBE) \
	       CONFIG_IXMOD_VIRTIO=$(IXMOD_VIRTIO) CONFIG_IXMOD_SOFTPORT=$(IXMOD_SOFTPORT)
ifneq ($(IXMOD_DEBUG),)
IXM_KCONFIG += CONFIG_IXMOD_DEBUG=y
endif

.PHONY: all modules modules-debian libixu check check-debug demo demo-softport lint clean help \
	install modules_install

PREFIX ?= /usr/local

all: modules libixu

modules:
	@test -n "$(KDIR)" -a -d "$(KDIR)" || { \
		echo "make: no kernel build tree; run scripts/bootstrap or pass KDIR="; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) $(IXM_KCONFIG) modules

modules-debian:
	scripts/build-modules $(if $(W),W=$(W)) $(if $(C),C=$(C))

libixu:
	$(MAKE) -C libixu

check:
	scripts/check

# kbuild installs external modules under updates/ of KDIR's release; depmod
# for that release (with DESTDIR, in the staging root) so modprobe finds it
modules_install: modules
	$(MAKE) -C $(KDIR) M=$(CURDIR) $(IXM_KCONFIG) $(if $(DESTDIR),INSTALL_MOD_PATH=$(DESTDIR)) \
		INSTALL_MOD_DIR=updates DEPMOD=true modules_install
	depmod $(if $(DESTDIR),-b $(DESTDIR)) -a $$(cat $(KDIR)/include/config/kernel.release)

install: modules_install libixu
	$(MAKE) -C libixu install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)
	install -d $(DESTDIR)$(PREFIX)/sbin
	install -m 755 scripts/ixmod-bind scripts/ixmod-stat $(DESTDIR)$(PREFIX)/sbin/

check-debug:
	scripts/check-debug $(if $(PART),--part $(PART))

demo:
	scripts/demo

demo-softport:
	scripts/demo --softport

lint:
	scripts/lint

# not kbuild's clean: for an external module it deletes every *.s under
# M=, tools/bench/icount/selftest-fw.s among them
clean:
	find ixmod uapi \( -name '*.o' -o -name '*.ko' -o -name '*.ko.*' -o -name '.*.cmd' \
		-o -name '*.mod' -o -name '*.mod.c' -o -name '*.a' -o -name '*.dwo' \) -delete
	rm -f Module.symvers modules.order .*.cmd .module-common.o
	rm -rf .tmp_versions
	$(MAKE) -C libixu clean
	$(MAKE) -C tools/testing/ixmod clean
	rm -rf build

# the comment above, up to its first empty line
help:
	@sed -n '3,/^$$/{/^$$/q;s/^# \{0,1\}//;p}' Makefile
