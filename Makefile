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
#   make dkms-install    the module's sources in /usr/src/ixmod-VERSION and
#                        dkms add, build, install (for the running kernel;
#                        KVER= another): DKMS rebuilds it for each new kernel
#   make dkms-uninstall  dkms remove --all, and the sources go
#   make deb             Debian packages in build/deb/ (dpkg-buildpackage on
#                        a copy of the tree): ixmod-dkms, libixu0,
#                        libixu-dev, ixmod-tools
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
	install modules_install dkms-src dkms-install dkms-uninstall deb

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

# ---- DKMS and Debian packages (Documentation/admin-guide/ixmod.rst) ----

# The version of the packages and of the DKMS module: VERSION, which
# debian/changelog's top entry must repeat (debian/rules checks).
VERSION := $(shell cat $(CURDIR)/VERSION)

# What the module's build needs, and only that: the kbuild files and the
# sources (not the objects or *.mod.c of an in-tree build).  DKMS runs
# kbuild on a copy of it with the options the MAKE line of dkms.conf sets.
DKMS_SOURCES = $(shell find Kbuild ixmod uapi -type f \( -name Kbuild -o -name '*.[ch]' \) \
		 ! -name '*.mod.c' | LC_ALL=C sort)
# dkms's --sourcetree (default /usr/src) and any further dkms options:
# --dkmstree, --installtree, --no-depmod put it all somewhere else
DKMS_SOURCETREE ?= /usr/src
DKMS_FLAGS ?=
DKMS_SRCDIR = $(DKMS_SOURCETREE)/ixmod-$(VERSION)
DKMS = dkms $(1) -m ixmod -v $(VERSION) --sourcetree $(DKMS_SOURCETREE) $(DKMS_FLAGS)

# the sources and dkms.conf (its version filled in) into
# DESTDIR/DKMS_SRCDIR; debian/rules uses it for ixmod-dkms
dkms-src:
	rm -rf $(DESTDIR)$(DKMS_SRCDIR)
	install -d $(DESTDIR)$(DKMS_SRCDIR)
	for f in $(DKMS_SOURCES); do \
		install -D -m 644 $$f $(DESTDIR)$(DKMS_SRCDIR)/$$f || exit 1; done
	sed 's/#MODULE_VERSION#/$(VERSION)/' dkms.conf > $(DESTDIR)$(DKMS_SRCDIR)/dkms.conf

# again over an earlier dkms-install of this version: that one goes first
dkms-install:
	$(MAKE) dkms-uninstall
	$(MAKE) dkms-src
	$(call DKMS,add)
	$(call DKMS,build) $(if $(KVER),-k $(KVER))
	$(call DKMS,install) $(if $(KVER),-k $(KVER))

dkms-uninstall:
	if [ -n "$$($(call DKMS,status))" ]; then $(call DKMS,remove) --all; fi
	rm -rf $(DKMS_SRCDIR)

# dpkg-buildpackage writes into the directory above the tree it builds:
# it builds a copy in build/deb/ixmod-VERSION, of the files git has or
# would add (not the build's outputs, which .gitignore names), and the
# packages land in build/deb/.  The copy goes once they are built.
DEB_DIR = $(CURDIR)/build/deb
deb:
	@git rev-parse --is-inside-work-tree >/dev/null 2>&1 || { \
		echo "make deb: not a git checkout (it builds a copy of the files git has)"; exit 1; }
	rm -rf $(DEB_DIR)
	mkdir -p $(DEB_DIR)/ixmod-$(VERSION)
	git ls-files -z --cached --others --exclude-standard | \
		xargs -0 sh -c 'for f; do [ -e "$$f" ] && printf "%s\0" "$$f"; done' sh | \
		tar --null -T - -cf - | tar -xf - -C $(DEB_DIR)/ixmod-$(VERSION)
	cd $(DEB_DIR)/ixmod-$(VERSION) && dpkg-buildpackage -us -uc -b
	rm -rf $(DEB_DIR)/ixmod-$(VERSION)
	ls $(DEB_DIR)

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
