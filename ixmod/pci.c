// SPDX-License-Identifier: GPL-2.0
/*
 * pci.c - the PCI driver "ixmod" for ports handed over by the operator
 *
 * ixmod never takes a NIC on its own.  Its id table is empty, so the PCI
 * core matches it to a device only when that device's driver_override
 * names "ixmod" (the vfio-pci model):
 *
 *   echo ixmod > /sys/bus/pci/devices/$DEV/driver_override
 *   echo $DEV > /sys/bus/pci/drivers/ixmod/bind
 *
 * scripts/ixmod-bind wraps this and the way back to the stock driver.
 * probe() then accepts only the chips it has a queue driver for and
 * refuses anything else with one line saying why.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>

#include "ixmod.h"

struct ixm_chip {
	u16				vendor;
	u16				device;
	const char			*name;
	const struct ixm_nic_ops	*ops;	/* NULL: driver built out */
	const char			*option;	/* the Kconfig option for it */
	u16				max_queues;
	bool				bar0;	/* registers in BAR 0, mapped here */
};

#if IS_ENABLED(CONFIG_IXMOD_IGB)
#define IXM_IGB_OPS	(&ixm_igb_ops)
#else
#define IXM_IGB_OPS	NULL
#endif
#if IS_ENABLED(CONFIG_IXMOD_IXGBE)
#define IXM_IXGBE_OPS	(&ixm_ixgbe_ops)
#else
#define IXM_IXGBE_OPS	NULL
#endif
#if IS_ENABLED(CONFIG_IXMOD_VIRTIO)
#define IXM_VNET_OPS	(&ixm_vnet_ops)
#else
#define IXM_VNET_OPS	NULL
#endif

/*
 * Table over switch: one row per device id ixmod knows.  The queue count
 * is the chip's RSS limit: 8 on the 82576 (§7.1.2.8), 16 on the 82599
 * (RETA's 4-bit entries, §8.2.3.7.15; it has 128 queues, but RSS alone
 * spreads over 16).  A virtio-net device says how many it has (its
 * driver lowers the 16 at init).  Virtio's registers are wherever its
 * capabilities say (virtio 1.1 §4.1.4), which its driver maps itself; a
 * transitional device (1000) is driven through its modern interface.
 */
#define IXM_82599(id, what) \
	{ PCI_VENDOR_ID_INTEL, id, "82599 " what, IXM_IXGBE_OPS, "CONFIG_IXMOD_IXGBE", 16, true }

static const struct ixm_chip ixm_chips[] = {
	{ PCI_VENDOR_ID_INTEL, 0x10c9, "82576", IXM_IGB_OPS, "CONFIG_IXMOD_IGB", 8, true },
	IXM_82599(0x10f7, "KX4"),
	IXM_82599(0x10f8, "combined backplane"),
	IXM_82599(0x10f9, "CX4"),
	IXM_82599(0x10fb, "SFP+"),
	IXM_82599(0x10fc, "XAUI/BX4"),
	IXM_82599(0x1517, "KR"),
	IXM_82599(0x151c, "10GBASE-T"),
	IXM_82599(0x1529, "SFP+ FCoE"),
	IXM_82599(0x152a, "backplane FCoE"),
	IXM_82599(0x1557, "EN SFP+"),
	{ PCI_VENDOR_ID_REDHAT_QUMRANET, 0x1041, "virtio-net", IXM_VNET_OPS,
	  "CONFIG_IXMOD_VIRTIO", 16, false },
	{ PCI_VENDOR_ID_REDHAT_QUMRANET, 0x1000, "virtio-net (transitional)", IXM_VNET_OPS,
	  "CONFIG_IXMOD_VIRTIO", 16, false },
};

static const struct ixm_chip *ixm_chip_find(struct pci_dev *pdev)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ixm_chips); i++)
		if (ixm_chips[i].vendor == pdev->vendor && ixm_chips[i].device == pdev->device)
			return &ixm_chips[i];
	return NULL;
}

static int ixm_pci_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	const struct ixm_chip *chip = ixm_chip_find(pdev);
	struct ixm_port *port;
	int err;

	if (!chip) {
		dev_err(&pdev->dev, "%04x:%04x is not a NIC ixmod drives (82576, 82599, virtio-net); clear driver_override\n",
			pdev->vendor, pdev->device);
		return -ENODEV;
	}
	if (!chip->ops) {
		dev_err(&pdev->dev, "%s (%04x:%04x): this ixmod was built without its queue driver (%s)\n",
			chip->name, pdev->vendor, pdev->device, chip->option);
		return -ENODEV;
	}

	err = pcim_enable_device(pdev);
	if (err) {
		dev_err(&pdev->dev, "cannot enable the device (%d)\n", err);
		return err;
	}
	err = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (err) {
		dev_err(&pdev->dev, "no usable DMA mask (%d)\n", err);
		return err;
	}
	err = chip->bar0 ? pcim_iomap_regions(pdev, BIT(0), KBUILD_MODNAME) : 0;
	if (err) {
		dev_err(&pdev->dev, "cannot map BAR 0 (%d)\n", err);
		return err;
	}
	pci_set_master(pdev);

	port = kzalloc(sizeof(*port), GFP_KERNEL);
	if (!port)
		goto err_nomem;
	port->pdev = pdev;
	port->dev = &pdev->dev;
	strscpy(port->name, pci_name(pdev), sizeof(port->name));
	port->nic.regs = chip->bar0 ? pcim_iomap_table(pdev)[0] : NULL;
	port->nic.dev = &pdev->dev;
	port->nic.ops = chip->ops;
	port->nic.tx_csum = chip->ops->tx_csum;
	port->nic.device_id = pdev->device;
	port->nic.max_queues = min_t(u16, chip->max_queues, IXM_NIC_MAX_QUEUES);

	err = port->nic.ops->reset(&port->nic);
	if (err) {
		dev_err(&pdev->dev, "%s reset failed (%d)\n", chip->name, err);
		goto err_free_port;
	}
	err = port->nic.ops->init(&port->nic);
	if (err) {
		dev_err(&pdev->dev, "%s init failed (%d)\n", chip->name, err);
		goto err_shutdown;
	}

	err = ixm_port_register(port);	/* from here the kobject owns @port */
	if (err) {
		dev_err(&pdev->dev, "cannot register the port (%d)\n", err);
		return err;
	}
	pci_set_drvdata(pdev, port);
	dev_info(&pdev->dev, "%s port %pM ready; configure it in /sys/kernel/ixmod/ports/%s\n",
		 chip->name, port->nic.mac, pci_name(pdev));
	return 0;

err_shutdown:
	port->nic.ops->shutdown(&port->nic);
err_free_port:
	kfree(port);
	return err;

err_nomem:
	dev_err(&pdev->dev, "out of memory for the port\n");
	return -ENOMEM;
}

static void ixm_pci_remove(struct pci_dev *pdev)
{
	struct ixm_port *port = pci_get_drvdata(pdev);

	ixm_port_unregister(port);	/* takes it down, resets the chip */
	dev_info(&pdev->dev, "port released\n");
}

/* Empty: ixmod binds only to devices whose driver_override names it. */
static const struct pci_device_id ixm_pci_ids[] = {
	{ }
};

static struct pci_driver ixm_pci_driver = {
	.name		= KBUILD_MODNAME,
	.id_table	= ixm_pci_ids,
	.probe		= ixm_pci_probe,
	.remove		= ixm_pci_remove,
};

/**
 * ixm_pci_init() - register the PCI driver
 *
 * Return: 0 or -errno.
 */
int ixm_pci_init(void)
{
	return pci_register_driver(&ixm_pci_driver);
}

/**
 * ixm_pci_exit() - unregister; every bound port is removed first
 */
void ixm_pci_exit(void)
{
	pci_unregister_driver(&ixm_pci_driver);
}
