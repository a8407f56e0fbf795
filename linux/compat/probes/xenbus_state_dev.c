// SPDX-License-Identifier: GPL-2.0
/* Mainline (7.3, not 6.12): xenbus_read_driver_state(dev, path). */
#include <xen/xenbus.h>

enum xenbus_state fipc_probe(const struct xenbus_device *dev)
{
	return xenbus_read_driver_state(dev, dev->otherend);
}
