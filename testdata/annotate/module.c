// SPDX-License-Identifier: GPL-2.0-only
/*
 * The "module" of t/71-annotate.t (linked with `ld -r` like a .ko): an e1000-
 * like driver with an enum, a u8 and an errno, and two static functions
 * whose names kernel.c has too: one returns another type there, the other
 * the same type from other parameters.
 */
#define noinline __attribute__((__noinline__, __noclone__))

typedef unsigned char u8;
typedef unsigned int u32;

struct pci_dev {
	void *driver_data;
};
struct pci_device_id {
	u32 vendor, device;
};
struct e1000_hw {
	volatile u8 *hw_addr;
	int fc;
};

enum e1000_fc_mode {
	e1000_fc_none = 0,
	e1000_fc_rx_pause,
	e1000_fc_tx_pause,
	e1000_fc_full,
	e1000_fc_default = 0xff,
};

noinline u8 e1000_read_reg8(struct e1000_hw *hw, u32 reg)
{
	return hw->hw_addr[reg];
}

noinline enum e1000_fc_mode e1000_fc_mode_get(struct e1000_hw *hw)
{
	return hw->fc > 3 ? e1000_fc_default : (enum e1000_fc_mode)hw->fc;
}

noinline int e1000_probe(struct pci_dev *pdev, const struct pci_device_id *ent)
{
	if (!ent->vendor)
		return -19;
	return pdev->driver_data ? 0 : -12;
}

noinline void e1000_remove(struct pci_dev *pdev)
{
	pdev->driver_data = 0;
}

/* kernel.c's probe_one returns int */
static noinline void probe_one(struct pci_dev *pdev)
{
	e1000_remove(pdev);
}

/* kernel.c's helper_same returns int too, from another parameter */
static noinline int helper_same(const struct pci_dev *pdev)
{
	return pdev->driver_data ? 0 : -5;
}

noinline int e1000_init_module(struct pci_dev *pdev)
{
	probe_one(pdev);
	return helper_same(pdev);
}
